import { callUnanswered } from '../echomq.messages';
import { EchoMqError } from '../errors';

/**
 * @internal The `callTimeoutMs` bound of one round trip on the command connection. The command is
 * not withdrawn when its time is up (ioredis keeps it queued, and a reply must still be matched to
 * it): the caller gets `UNAVAILABLE` at once, and `onLate`, when given, gets the reply that comes
 * afterwards (a claim hands its jobs back with it).
 *
 * @param ms the bound; null returns `pending` unchanged (no timer on the hot path)
 * @param extraMs time the server itself may take to answer (a WAIT's own timeout)
 */
export function withinCallTimeout<T>(pending: Promise<T>, ms: number | null, op: string, queue: string,
  { extraMs = 0, onLate }: { extraMs?: number; onLate?: (reply: T) => void } = {}): Promise<T> {
  if (ms === null) return pending;
  return new Promise<T>((resolve, reject) => {
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      reject(new EchoMqError(callUnanswered(op, queue, ms + extraMs), { code: 'UNAVAILABLE', queue: queue || undefined }));
    }, ms + extraMs);
    pending.then(
      (reply) => {
        clearTimeout(timer);
        if (!late) resolve(reply);
        else onLate?.(reply);
      },
      (err: unknown) => {
        clearTimeout(timer);
        if (!late) reject(err);
      },
    );
  });
}

/**
 * @internal Waits for `promise` until `deadline` (ms since epoch): true when it settled (either way) by
 * then. For a shutdown step that must end whatever the server does: what is left unanswered goes on
 * without it.
 */
export async function settledBy(promise: Promise<unknown>, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(deadline - Date.now(), 0))));
  try {
    return await Promise.race([promise.then(() => true, () => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
