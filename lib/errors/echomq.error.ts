/**
 * What went wrong, for code that maps errors (e.g. to HTTP statuses): bad input to a call; the
 * server out of memory; a server refusal; no free job id; a misconfigured module or consumer; a
 * write not confirmed by enough replicas in time (`durability`); a wait that timed out (waitFor); a call
 * the server did not answer within `callTimeoutMs` (the write may stand); a queue that still holds what
 * the call may not remove (obliterate while jobs are active); a submit into a lane that holds its `maxDepth`.
 */
export type EchoMqErrorCode =
  'INVALID_ARGUMENT' | 'OUT_OF_MEMORY' | 'SERVER_REJECTED' | 'IDS_EXHAUSTED' | 'MISCONFIGURED' | 'NOT_REPLICATED' | 'TIMEOUT'
  | 'UNAVAILABLE' | 'NOT_EMPTY' | 'LANE_FULL';

/** Context carried by an {@link EchoMqError}. */
export interface EchoMqErrorContext {
  /** What went wrong. @default 'INVALID_ARGUMENT' when `argument` is given, else 'MISCONFIGURED' */
  code?: EchoMqErrorCode;
  /** The argument that was rejected, when the error is about one. */
  argument?: string;
  /** The queue the operation was on. */
  queue?: string;
  /** The lane (group) the operation was on. */
  group?: string;
  /** The underlying error, when one caused this. */
  cause?: unknown;
}

/** The one error class of EchoMQ: bad input, a refused operation or a misconfiguration. */
export class EchoMqError extends Error {
  /** What went wrong. */
  readonly code: EchoMqErrorCode;
  /** The argument that was rejected, if any. */
  readonly argument?: string;
  /** The queue involved, if any. */
  readonly queue?: string;
  /** The lane involved, if any. */
  readonly group?: string;

  constructor(message: string, context: EchoMqErrorContext = {}) {
    super(message);
    this.name = 'EchoMqError';
    this.code = context.code ?? (context.argument !== undefined ? 'INVALID_ARGUMENT' : 'MISCONFIGURED');
    this.argument = context.argument;
    this.queue = context.queue;
    this.group = context.group;
    if (context.cause !== undefined) (this as { cause?: unknown }).cause = context.cause;
  }
}
