import { DEDUP_MAX_BYTES, NAME_MAX_BYTES } from '../echomq.constants';
import { invalidArgument, nameRule, payloadNotJson, payloadTooLarge, wellFormedRule } from '../echomq.messages';
import { EchoMqError } from '../errors';
import { isJobId } from '../ids/job-id';

/** @internal Argument checks: each throws an EchoMqError naming the argument, before any write. */

// NOTE: C0, DEL and C1 (U+0080–U+009F): every Unicode control character (category Cc).
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[{}\u0000-\u001f\u007f-\u009f]/;
/** A UTF-16 surrogate without its pair: UTF-8 turns every one into U+FFFD, so two names would share one key. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const fail = (argument: string, rule: string, value: unknown, queue?: string): never => {
  throw new EchoMqError(invalidArgument(argument, rule, value), { argument, queue });
};

/** A queue or group name. */
export function checkName(argument: string, value: unknown, queue?: string): string {
  if (typeof value !== 'string' || value.length === 0 || FORBIDDEN.test(value)
      || Buffer.byteLength(value, 'utf8') > NAME_MAX_BYTES) {
    fail(argument, nameRule(NAME_MAX_BYTES), value, queue);
  }
  if (LONE_SURROGATE.test(value as string)) fail(argument, wellFormedRule, value, queue);
  return value as string;
}

/** An integer in [min, max]. */
export function checkInt(argument: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER, queue?: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    fail(argument, max === Number.MAX_SAFE_INTEGER ? `must be an integer >= ${min}` : `must be an integer from ${min} to ${max}`, value, queue);
  }
  return value as number;
}

/** An optional integer in [min, max]. */
export function checkOptInt(argument: string, value: unknown, min: number, max?: number, queue?: string): number | undefined {
  return value === undefined ? undefined : checkInt(argument, value, min, max, queue);
}

/** A job id minted by mintJobId(). */
export function checkJobId(argument: string, value: unknown, queue?: string): string {
  if (!isJobId(value)) fail(argument, 'must be a job id minted by mintJobId() ("JOB" + 11 base62 characters)', value, queue);
  return value as string;
}

/** A fencing token: the attempt number a claim returned. */
export function checkToken(value: unknown, queue?: string): number {
  return checkInt('token', value, 1, Number.MAX_SAFE_INTEGER, queue);
}

/** A dedup key. */
export function checkDedupKey(value: unknown, queue?: string, argument = 'dedupKey'): string {
  if (typeof value !== 'string' || value.length === 0 || Buffer.byteLength(value, 'utf8') > DEDUP_MAX_BYTES) {
    fail(argument, `must be a non-empty string of at most ${DEDUP_MAX_BYTES} bytes`, value, queue);
  }
  return value as string;
}

/** A plain options object, or undefined. */
export function checkOptions<T extends object>(argument: string, value: unknown, queue?: string): Partial<T> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) fail(argument, 'must be an options object', value, queue);
  return value as Partial<T>;
}

/** Serialises a payload to JSON, within the size limit (`knob`: the option that sets it, null when fixed). */
export function encodePayload(value: unknown, maxBytes: number, queue?: string, argument = 'payload', knob: string | null = 'maxPayloadBytes'): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (err) {
    throw new EchoMqError(payloadNotJson((err as Error).message, argument), { argument, queue, cause: err });
  }
  if (json === undefined) {
    throw new EchoMqError(payloadNotJson(`${typeof value} has no JSON form`, argument), { argument, queue });
  }
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > maxBytes) throw new EchoMqError(payloadTooLarge(bytes, maxBytes, argument, knob), { argument, queue });
  return json;
}
