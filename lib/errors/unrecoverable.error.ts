/**
 * Thrown by a handler to say that retrying cannot help (bad input, a job that no longer makes
 * sense): the job is dead-lettered at once, whatever attempts it has left, with this error's
 * message as its `lastError`. By hand: `fail(queue, jobId, token, error, { dead: true })`.
 */
export class UnrecoverableError extends Error {
  constructor(message?: string) {
    super(message);
    this.name = 'UnrecoverableError';
  }
}

/**
 * @internal True for an UnrecoverableError, also one from another copy of the package (by name,
 * as `instanceof` fails across copies).
 */
export function isUnrecoverable(err: unknown): boolean {
  return err instanceof UnrecoverableError || (err instanceof Error && err.name === 'UnrecoverableError');
}
