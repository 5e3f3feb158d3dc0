import { DEFAULT_PREFIX, MAX_CALL_TIMEOUT_MS, MAX_KEEP_COMPLETED_MS } from './echomq.constants';
import { EchoMqError } from './errors';
import type { EchoMqModuleOptions, ResolvedEchoMqOptions } from './interfaces';
import { checkInt, checkName } from './validation/validate';

/** @internal Merges the defaults into module options, for both forRoot and forRootAsync. */
export function resolveEchoMqOptions(options: EchoMqModuleOptions = {}): ResolvedEchoMqOptions {
  if (typeof options !== 'object' || options === null) {
    throw new EchoMqError('EchoMqModule options must be an object.', { argument: 'options' });
  }
  const backoff = options.backoff ?? { delayMs: 1_000 };
  const resolved: ResolvedEchoMqOptions = {
    connection: options.connection ?? 'redis://127.0.0.1:6379',
    prefix: options.prefix ?? DEFAULT_PREFIX,
    leaseMs: options.leaseMs ?? 30_000,
    maxAttempts: options.maxAttempts ?? 3,
    backoff: {
      delayMs: backoff.delayMs,
      factor: backoff.factor ?? 2,
      maxDelayMs: backoff.maxDelayMs ?? 3_600_000,
    },
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? 10_000,
    maxPayloadBytes: options.maxPayloadBytes ?? 1_048_576,
    idleBlockMs: options.idleBlockMs ?? 5_000,
    keepCompletedMs: options.keepCompletedMs ?? 0,
    logger: options.logger,
    callTimeoutMs: options.callTimeoutMs ?? null,
    durability: resolveDurability(options.durability),
  };
  if (options.compat !== undefined) {
    if (options.compat !== 'echomq') {
      throw new EchoMqError('Invalid argument "compat": must be \'echomq\' or left out.', { argument: 'compat' });
    }
    resolved.compat = options.compat;
  }
  checkName('prefix', resolved.prefix);
  checkInt('leaseMs', resolved.leaseMs, 1);
  checkInt('maxAttempts', resolved.maxAttempts, 1);
  checkInt('backoff.delayMs', resolved.backoff.delayMs, 0);
  if (typeof resolved.backoff.factor !== 'number' || !Number.isFinite(resolved.backoff.factor) || resolved.backoff.factor < 1) {
    throw new EchoMqError('Invalid argument "backoff.factor": must be a finite number >= 1.', { argument: 'backoff.factor' });
  }
  checkInt('backoff.maxDelayMs', resolved.backoff.maxDelayMs, 0);
  checkInt('shutdownTimeoutMs', resolved.shutdownTimeoutMs, 0);
  checkInt('maxPayloadBytes', resolved.maxPayloadBytes, 1);
  checkInt('idleBlockMs', resolved.idleBlockMs, 10);
  checkInt('keepCompletedMs', resolved.keepCompletedMs, 0, MAX_KEEP_COMPLETED_MS);
  if (resolved.callTimeoutMs !== null) checkInt('callTimeoutMs', resolved.callTimeoutMs, 1, MAX_CALL_TIMEOUT_MS);
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
