import { DEFAULT_PREFIX, MAX_CALL_TIMEOUT_MS, MAX_KEEP_COMPLETED_MS } from './echomq.constants';
import { EchoMqError } from './errors';
import type { EchoMqBackoff, EchoMqModuleOptions, ResolvedEchoMqOptions } from './interfaces';
import { checkInt, checkName } from './validation/validate';

/** @internal Merges the defaults into module options, for both forRoot and forRootAsync. */
export function resolveEchoMqOptions(options: EchoMqModuleOptions = {}): ResolvedEchoMqOptions {
  if (typeof options !== 'object' || options === null) {
    throw new EchoMqError('EchoMqModule options must be an object.', { argument: 'options' });
  }
  const resolved: ResolvedEchoMqOptions = {
    connection: options.connection ?? 'redis://127.0.0.1:6379',
    prefix: options.prefix ?? DEFAULT_PREFIX,
    leaseMs: options.leaseMs ?? 30_000,
    maxAttempts: options.maxAttempts ?? 3,
    backoff: resolveBackoff(options.backoff ?? { delayMs: 1_000 }, 'backoff'),
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? 10_000,
    maxPayloadBytes: options.maxPayloadBytes ?? 1_048_576,
    idleBlockMs: options.idleBlockMs ?? 5_000,
    keepCompletedMs: options.keepCompletedMs ?? 0,
    logger: options.logger,
    callTimeoutMs: options.callTimeoutMs ?? null,
    durability: resolveDurability(options.durability),
    shardsOnOneServer: options.shardsOnOneServer ?? false,
  };
  if (typeof resolved.shardsOnOneServer !== 'boolean') {
    throw new EchoMqError('Invalid argument "shardsOnOneServer": must be true or false.', { argument: 'shardsOnOneServer' });
  }
  if (options.compat !== undefined) {
    if (options.compat !== 'echomq') {
      throw new EchoMqError('Invalid argument "compat": must be \'echomq\' or left out.', { argument: 'compat' });
    }
    resolved.compat = options.compat;
  }
  // NOTE: ioredis takes a string it cannot parse as a URL for a Unix socket path, so 'http://host' would
  // connect to nothing, retrying forever; a string with a scheme must name a Redis one.
  const scheme = typeof resolved.connection === 'string' ? /^([a-z][a-z0-9+.-]*):\/\//i.exec(resolved.connection)?.[1] : undefined;
  if (scheme !== undefined && !['redis', 'rediss'].includes(scheme.toLowerCase())) {
    throw new EchoMqError(`Invalid argument "connection": a URL must start with redis:// or rediss:// (TLS), not ${scheme}://; or pass RedisOptions, a Unix socket path, or a client.`,
      { argument: 'connection' });
  }
  checkName('prefix', resolved.prefix);
  checkInt('leaseMs', resolved.leaseMs, 1);
  checkInt('maxAttempts', resolved.maxAttempts, 1);
  checkInt('shutdownTimeoutMs', resolved.shutdownTimeoutMs, 0);
  checkInt('maxPayloadBytes', resolved.maxPayloadBytes, 1);
  checkInt('idleBlockMs', resolved.idleBlockMs, 10);
  checkInt('keepCompletedMs', resolved.keepCompletedMs, 0, MAX_KEEP_COMPLETED_MS);
  if (resolved.callTimeoutMs !== null) checkInt('callTimeoutMs', resolved.callTimeoutMs, 1, MAX_CALL_TIMEOUT_MS);
  return resolved;
}

/**
 * @internal Checks a retry backoff and fills in its defaults (the module's `backoff`, a queue's
 * `defaults.backoff`); `argument` names it in errors.
 */
export function resolveBackoff(b: EchoMqBackoff, argument: string): Required<EchoMqBackoff> {
  if (typeof b !== 'object' || b === null) {
    throw new EchoMqError(`Invalid argument "${argument}": must be { delayMs, factor?, maxDelayMs? }.`, { argument });
  }
  const resolved = { delayMs: b.delayMs, factor: b.factor ?? 2, maxDelayMs: b.maxDelayMs ?? 3_600_000 };
  checkInt(`${argument}.delayMs`, resolved.delayMs, 0);
  if (typeof resolved.factor !== 'number' || !Number.isFinite(resolved.factor) || resolved.factor < 1) {
    throw new EchoMqError(`Invalid argument "${argument}.factor": must be a finite number >= 1.`, { argument: `${argument}.factor` });
  }
  checkInt(`${argument}.maxDelayMs`, resolved.maxDelayMs, 0);
  return resolved;
}

/** Checks the `durability` option and fills in its defaults; null when it is not set. */
function resolveDurability(d: EchoMqModuleOptions['durability']): ResolvedEchoMqOptions['durability'] {
  if (d === undefined || d === null) return null;
  if (typeof d !== 'object') {
    throw new EchoMqError('Invalid argument "durability": must be { replicas, timeoutMs?, fsync? }.', { argument: 'durability' });
  }
  const resolved = { replicas: d.replicas, timeoutMs: d.timeoutMs ?? 1_000, fsync: d.fsync ?? false };
  checkInt('durability.replicas', resolved.replicas, 1, 100);
  checkInt('durability.timeoutMs', resolved.timeoutMs, 1, 3_600_000);
  if (typeof resolved.fsync !== 'boolean') {
    throw new EchoMqError('Invalid argument "durability.fsync": must be a boolean.', { argument: 'durability.fsync' });
  }
  return resolved;
}
