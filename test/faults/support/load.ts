import { resolveEchoMqOptions } from '../../../lib/echomq.options';
import { mintJobId } from '../../../lib/ids/job-id';
import { LanesService } from '../../../lib/lanes.service';
import { closeRedisClient, createRedisClient } from '../../../lib/redis/redis-connection';
import type { RedisClient } from '../../../lib/scripts/lane-scripts';
import { FaultConsumer } from './consumer';
import { pause, waitFor } from './wait';

/** A steady load on one queue: producers and consumers, each on the library's own connections. */
export interface LoadOptions {
  url: string;
  queue: string;
  /** Jobs to submit in all. */
  total: number;
  /** Lanes the jobs spread over. */
  groups: number;
  /** Producers calling submit one job at a time. @default 2 */
  producers?: number;
  /** Of the one-at-a-time producers, how many fail a command at a dropped connection (ioredis
   *  maxRetriesPerRequest 0) instead of holding it until the reconnect, and so retry it. @default 0 */
  failFastProducers?: number;
  /** Producers calling submitMany with chunks of 25. @default 0 */
  batchProducers?: number;
  /** Whether producers mint the job id themselves and retry a failed submit with it. @default true */
  ownIds?: boolean;
  /** Consumer loops. @default 2 */
  consumers?: number;
  leaseMs?: number;
}

/** What a load run saw. */
export interface LoadFigures {
  submitted: number;
  handled: number;
  lost: number;
  handledTwice: number;
  admittedTwice: number;
  producerRetries: number;
  consumerErrors: number;
  refusedCompletions: number;
  reaped: number;
  connectionErrors: number;
}

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * Runs producers and consumers against one queue until every submitted job has been handled and
 * the lanes have drained. Faults are the test's to inject while it runs.
 */
export class LoadRun {
  /** seq -> the id its submit returned. */
  readonly acked = new Map<number, string>();
  /** seq -> how many times a handler ran it, and under which ids. */
  readonly handled = new Map<number, { count: number; ids: Set<string> }>();
  /** When each accepted completion came back (ms, host clock). */
  readonly completions: number[] = [];
  private readonly clients: RedisClient[] = [];
  private readonly consumers: FaultConsumer[] = [];
  private producing?: Promise<void>;
  private nextSeq = 0;
  private producerRetries = 0;
  private connectionErrors = 0;
  readonly observer: LanesService;

  constructor(private readonly o: LoadOptions) {
    this.observer = this.service('observer');
  }

  private connect(name: string, failFast = false): RedisClient {
    const { hostname, port } = new URL(this.o.url);
    const connection = failFast ? { host: hostname, port: Number(port), maxRetriesPerRequest: 0 } : this.o.url;
    const client = createRedisClient(connection, `faults-${name}`);
    // NOTE: a dropped connection emits 'error' until it is back; counted here, the reconnect is ioredis's.
    client.on('error', () => void (this.connectionErrors += 1));
    this.clients.push(client);
    return client;
  }

  private service(name: string, failFast = false): LanesService {
    return new LanesService(this.connect(name, failFast), resolveEchoMqOptions({ connection: this.o.url, logger: quiet }));
  }

  start(): this {
    const { queue } = this.o;
    for (let i = 0; i < (this.o.consumers ?? 2); i++) {
      this.consumers.push(new FaultConsumer({
        lanes: this.service(`consumer-${i}`),
        blocking: this.connect(`consumer-${i}-block`),
        queue,
        leaseMs: this.o.leaseMs ?? 2_000,
        handle: (job) => {
          const seq = (job.payload as { seq: number }).seq;
          const h = this.handled.get(seq) ?? { count: 0, ids: new Set<string>() };
          h.count += 1;
          h.ids.add(job.id);
          this.handled.set(seq, h);
        },
        onCompleted: (_job, accepted) => {
          if (accepted) this.completions.push(Date.now());
        },
      }).start());
    }
    const loops: Promise<void>[] = [];
    for (let i = 0; i < (this.o.producers ?? 2); i++) {
      loops.push(this.produce(this.service(`producer-${i}`, i < (this.o.failFastProducers ?? 0))));
    }
    for (let i = 0; i < (this.o.batchProducers ?? 0); i++) loops.push(this.produceMany(this.service(`batch-producer-${i}`)));
    this.producing = Promise.all(loops).then(() => undefined);
    return this;
  }

  private group(seq: number): string {
    return `tenant-${seq % this.o.groups}`;
  }

  private async produce(lanes: LanesService): Promise<void> {
    const own = this.o.ownIds ?? true;
    for (let seq = this.nextSeq++; seq < this.o.total; seq = this.nextSeq++) {
      const opts = own ? { jobId: mintJobId() } : undefined;
      for (;;) {
        try {
          this.acked.set(seq, await lanes.submit(this.o.queue, this.group(seq), { seq }, opts));
          break;
        } catch {
          this.producerRetries += 1;
          await pause(50);
        }
      }
    }
  }

  private async produceMany(lanes: LanesService): Promise<void> {
    for (;;) {
      const seqs: number[] = [];
      while (seqs.length < 25 && this.nextSeq < this.o.total) seqs.push(this.nextSeq++);
      if (seqs.length === 0) return;
      const own = this.o.ownIds ?? true;
      const items = seqs.map((seq) => ({ group: this.group(seq), payload: { seq }, opts: own ? { jobId: mintJobId() } : undefined }));
      for (;;) {
        try {
          const ids = await lanes.submitMany(this.o.queue, items);
          seqs.forEach((seq, i) => this.acked.set(seq, ids[i]));
          break;
        } catch {
          this.producerRetries += 1;
          await pause(50);
        }
      }
    }
  }

  /** Resolves once `n` submits have been acknowledged. */
  async ackedAtLeast(n: number, timeoutMs = 60_000): Promise<void> {
    await waitFor(`${n} acknowledged submits`, () => this.acked.size >= n, { timeoutMs, intervalMs: 5 });
  }

  /**
   * Waits for every job to be submitted and handled and for the queue to drain (nothing pending,
   * nothing leased, no active count left), then stops the loops and closes every connection.
   */
  async finish(timeoutMs = 60_000): Promise<LoadFigures> {
    const { queue, total } = this.o;
    try {
      await this.producing;
      await waitFor(`all ${total} jobs handled`, () => this.handled.size >= total, { timeoutMs });
      const k = this.observer.keysOf(queue);
      const client = this.clients[0];
      await waitFor('the lanes to drain and gactive to return to 0', async () => {
        const [lanes, gactive, leases] = await Promise.all([this.observer.lanes(queue), client.hlen(k.gactive), client.zcard(k.active)]);
        return lanes.length === 0 && gactive === 0 && leases === 0;
      }, { timeoutMs, intervalMs: 50 });
      return this.figures();
    } finally {
      await Promise.all(this.consumers.map((c) => c.stop()));
      await Promise.all(this.clients.map((c) => closeRedisClient(c)));
    }
  }

  figures(): LoadFigures {
    let lost = 0;
    for (const seq of this.acked.keys()) if (!this.handled.has(seq)) lost += 1;
    const all = [...this.handled.values()];
    const sum = (f: (c: FaultConsumer) => number) => this.consumers.reduce((n, c) => n + f(c), 0);
    return {
      submitted: this.acked.size,
      handled: this.handled.size,
      lost,
      handledTwice: all.filter((h) => h.count > 1).length,
      admittedTwice: all.filter((h) => h.ids.size > 1).length,
      producerRetries: this.producerRetries,
      consumerErrors: sum((c) => c.stats.errors),
      refusedCompletions: sum((c) => c.stats.refused),
      reaped: sum((c) => c.stats.reaped),
      connectionErrors: this.connectionErrors,
    };
  }
}
