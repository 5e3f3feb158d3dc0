/**
 * Job ids: `JOB` + 11 base62 characters (0-9A-Za-z, zero-padded) encoding a 63-bit snowflake of
 * 41 bits of ms since 2024-01-01T00:00:00Z, 10 bits of node and 12 bits of sequence. The alphabet
 * is in ASCII order and the width fixed, so byte order is mint order.
 */

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const EPOCH_MS = Date.UTC(2024, 0, 1);
const JOB_ID = /^JOB[0-9A-Za-z]{11}$/;
const MAX_SEQ = 4095;
const MAX_NODE = 1023;

let node = Math.floor(Math.random() * (MAX_NODE + 1));
let lastMs = -1;
let seq = 0;
/** How far the server's clock is ahead of this process's (ms): see setJobIdClockOffset. */
let clockOffsetMs = 0;

/** A 63-bit value as 11 base62 digits, zero-padded. */
function digitsOf(value: bigint): string {
  let v = value;
  const out = new Array<string>(11);
  for (let i = 10; i >= 0; i--) {
    out[i] = ALPHABET[Number(v % 62n)];
    v /= 62n;
  }
  return out.join('');
}

function encode(ms: number, nodeBits: number, sequence: number): string {
  return 'JOB' + digitsOf((BigInt(ms) << 22n) | (BigInt(nodeBits) << 12n) | BigInt(sequence));
}

/** The largest id's digits: 11 base62 digits reach past 2^63, the snowflake's width. */
const MAX_DIGITS = digitsOf((1n << 63n) - 1n);

/**
 * Mints a job id. Ids minted in one process never sort before an earlier one: a clock that steps
 * back, or more than 4,096 ids in a millisecond, borrows the next millisecond instead.
 */
export function mintJobId(): string {
  let ms = Date.now() + clockOffsetMs - EPOCH_MS;
  if (ms <= lastMs) {
    ms = lastMs;
    seq += 1;
    if (seq > MAX_SEQ) {
      ms += 1;
      seq = 0;
    }
  } else {
    seq = 0;
  }
  lastMs = ms;
  return encode(ms, node, seq);
}

/** @internal Sets this process's node number (0–1023); later ids still sort after earlier ones. */
export function setJobIdNode(value: number): void {
  const next = ((Math.floor(value) % (MAX_NODE + 1)) + MAX_NODE + 1) % (MAX_NODE + 1);
  if (next === node) return;
  node = next;
  // NOTE: the node sits below the time bits, so a lower node in the same ms would sort earlier.
  if (lastMs >= 0) {
    lastMs += 1;
    seq = -1;
  }
}

/**
 * @internal Mints on the server's clock: `offsetMs` is how far it is ahead of this process's (the
 * node lease measures it at every take and renewal). A minted id's time is its job's submit time,
 * which head ages (headWaitMs, oldestWaitMs) and submittedAt count from on the server's clock; a host
 * whose clock is off would otherwise make its jobs look older, or not waiting at all. A correction
 * back in time borrows milliseconds as a clock stepping back does, so ids still never sort before
 * earlier ones.
 */
export function setJobIdClockOffset(offsetMs: number): void {
  if (Number.isFinite(offsetMs)) clockOffsetMs = Math.round(offsetMs);
}

/** @internal This process's node number. */
export function jobIdNode(): number {
  return node;
}

/** Whether a value is a well-formed job id: `JOB` and 11 base62 digits of a 63-bit snowflake. */
export function isJobId(value: unknown): value is string {
  // NOTE: fixed width and an alphabet in ASCII order, so digits compare as the numbers they encode.
  return typeof value === 'string' && JOB_ID.test(value) && value.slice(3) <= MAX_DIGITS;
}

/** @internal Decodes a job id to its parts. */
export function decodeJobId(id: string): { ms: number; node: number; seq: number } {
  let v = 0n;
  for (const ch of id.slice(3)) v = v * 62n + BigInt(ALPHABET.indexOf(ch));
  return { ms: Number(v >> 22n) + EPOCH_MS, node: Number((v >> 12n) & 1023n), seq: Number(v & 4095n) };
}

/**
 * @internal The mint time (ms since epoch) inside a job id, 0 for a value that is not one. Rows do
 * not store their submit time: it is this. Plain number arithmetic in two limbs (the high bits
 * above 2^22 and the low 22), no BigInt, since claims call it for every job they serve.
 */
export function mintTimeOf(id: string): number {
  if (!JOB_ID.test(id)) return 0;
  let hi = 0;
  let lo = 0;
  for (let i = 3; i < 14; i++) {
    const x = lo * 62 + ALPHABET.indexOf(id[i]);
    hi = hi * 62 + Math.floor(x / 4194304);
    lo = x % 4194304;
  }
  return hi + EPOCH_MS;
}
