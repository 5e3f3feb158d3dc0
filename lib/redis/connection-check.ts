import { connectionFailedAtStart } from '../echomq.messages';
import { EchoMqError } from '../errors';
import type { RedisClient } from '../scripts/lane-scripts';

/**
 * @internal Whether a connection error is one that retrying cannot cure: the server's certificate
 * is not trusted or does not match (Node's TLS error codes), TLS spoken to a plain port, or the
 * server refusing the credentials (the reply's error code, its first word).
 */
export function isFatalConnectionError(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (/CERT|SELF_SIGNED|ERR_TLS|ERR_SSL|_SSL_|HOSTNAME/.test(code)) return true;
  const word = typeof e?.message === 'string' ? e.message.split(' ', 1)[0] : '';
  return word === 'WRONGPASS' || word === 'NOAUTH';
}

/**
 * @internal Waits for a new connection's first outcome: resolves once it is ready, or after
 * `waitMs` while it is still trying (the server may be down for now: ioredis keeps trying, and the
 * application boots); rejects with an {@link EchoMqError} at the first error that retrying cannot
 * cure (a certificate not trusted, credentials refused), so a misconfigured boot fails at once.
 */
export function checkConnectionAtStart(client: RedisClient, name: string, waitMs: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const finish = (err?: EchoMqError) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('error', onError);
      if (err) reject(err);
      else resolve();
    };
    const onReady = () => finish();
    const onError = (err: Error) => {
      if (!isFatalConnectionError(err)) return;
      finish(new EchoMqError(connectionFailedAtStart(name, err), { code: 'MISCONFIGURED', cause: err }));
    };
    const timer = setTimeout(() => finish(), waitMs);
    client.on('ready', onReady);
    client.on('error', onError);
  });
}
