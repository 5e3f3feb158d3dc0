import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { ECHOMQ_REDIS_CLIENT } from '../echomq.constants';
import { ClaimLoopOrchestrator } from '../runner/claim-loop.orchestrator';
import type { RedisClient } from '../scripts/lane-scripts';

/** How long the server has to answer a health check's PING. */
const PING_TIMEOUT_MS = 1_000;

/**
 * A `@nestjs/terminus` health indicator for EchoMQ. Up when the server answers a PING within a
 * second and no claim loop of this application has been failing for longer than its lease; down,
 * with the reason in its details, otherwise. Add it to the providers of the module whose
 * controller runs the health check (that module imports `TerminusModule`).
 */
@Injectable()
export class EchoMqHealthIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    private readonly loops: ClaimLoopOrchestrator,
    @Inject(ECHOMQ_REDIS_CLIENT) private readonly client: RedisClient,
  ) {}

  /**
   * Checks the server and this application's claim loops.
   * @param key the key of the result in the health check's report
   */
  async isHealthy<const Key extends string = 'echomq'>(key: Key = 'echomq' as Key): Promise<HealthIndicatorResult<Key>> {
    const indicator = this.health.check(key);
    // NOTE: while the connection is down, commands wait in ioredis's offline queue; a PING there
    // would only time out, and each check would leave one more queued behind it.
    if (this.client.status !== 'ready') {
      return indicator.down({ reason: `the Redis connection is ${this.client.status}` });
    }
    const started = Date.now();
    try {
      await withTimeout(this.client.ping(), PING_TIMEOUT_MS);
    } catch (err) {
      return indicator.down({ reason: `the server did not answer a PING within ${PING_TIMEOUT_MS} ms (${(err as Error).message})` });
    }
    const pingMs = Date.now() - started;
    const now = Date.now();
    const failing = this.loops.loopHealth().filter((l) => l.failingSinceMs !== undefined && now - l.failingSinceMs > l.leaseMs);
    if (failing.length > 0) {
      return indicator.down({
        reason: `${failing.length} claim loop(s) failing for longer than their lease`,
        failing: failing.map((l) => ({ consumer: l.name, queue: l.queue, failingForMs: now - l.failingSinceMs!, leaseMs: l.leaseMs })),
      });
    }
    return indicator.up({ pingMs, loops: this.loops.loopHealth().length });
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
