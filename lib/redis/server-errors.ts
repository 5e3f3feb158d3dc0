import { aclRefused, clusterUnreachable, connectionClosed, outOfMemory, serverRejected } from '../echomq.messages';
import { EchoMqError } from '../errors';

/** The error code of a server reply (its first word), also when Redis 6.2 wraps it in a script error. */
function replyCode(message: string, code: string): boolean {
  return message.startsWith(`${code} `) || message.includes(`-${code} `);
}

/**
 * @internal Turns what the server refused into an {@link EchoMqError}: out of memory, an ACL
 * refusal (naming the rules the user needs), or any other refusal of a script (code
 * SERVER_REJECTED, the server's text kept); a call on a closed connection, or one a Cluster gave up
 * on after its redirections, UNAVAILABLE. Other errors
 * of the connection pass through as they are: ioredis retries those.
 */
export function fromServerError(op: string, queue: string, prefix: string, err: unknown): unknown {
  // NOTE: ioredis rejects with this once its client was closed (quit or disconnect), never to retry.
  if (err instanceof Error && err.message === 'Connection is closed.') {
    return new EchoMqError(connectionClosed(op, queue), { code: 'UNAVAILABLE', queue: queue || undefined, cause: err });
  }
  // NOTE: a Cluster gives up after maxRedirections retries (a failover longer than they last).
  if (err instanceof Error && err.message.startsWith('Too many Cluster redirections')) {
    return new EchoMqError(clusterUnreachable(op, queue, err.message), { code: 'UNAVAILABLE', queue: queue || undefined, cause: err });
  }
  if (!(err instanceof Error) || err.name !== 'ReplyError') return err;
  const message = err.message;
  if (replyCode(message, 'OOM')) return new EchoMqError(outOfMemory(op, queue), { code: 'OUT_OF_MEMORY', queue, cause: err });
  if (replyCode(message, 'NOPERM')) return new EchoMqError(aclRefused(op, queue, prefix, message), { code: 'SERVER_REJECTED', queue, cause: err });
  return new EchoMqError(serverRejected(op, queue, message), { code: 'SERVER_REJECTED', queue, cause: err });
}
