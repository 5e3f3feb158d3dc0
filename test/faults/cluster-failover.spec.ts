import type { INestApplication } from '@nestjs/common';
import calculateSlot from 'cluster-key-slot';
import type { Cluster } from 'ioredis';
import { LaneJob, LanesService, mintJobId } from '../../lib';
import type { EchoMqModuleOptions, FailOutcome } from '../../lib/interfaces';
import type { LaneKeys } from '../../lib/redis/lane-keys';
import { closeRedisClient, createRedisClient } from '../../lib/redis/redis-connection';
import { shardOf } from '../../lib/shards/shard-hash';
import { lanesPerShard, testQueue } from '../support/lanes';
import { bootApp } from '../support/nest';
import { seeded } from '../support/seeded';
import { TestCluster } from './support/cluster';
import { laneConsistency } from './support/lane-consistency';
import { pause, report, waitFor } from './support/wait';

/** The actors' leases: an abandoned job comes back (by a reap) this long after its claim. */
const LEASE_MS = 1_500;
/** How long the failing master's replica is held behind before the master dies. */
const HOLD_MS = 400;
/**
 * A write acknowledged this long before the hold, or after the kill, may still be lost: its
 * replication bytes can reach the held link (in this process) after its reply reached the caller,
 * and the hold drops them; a reply read after the kill was sent before it.
 */
const HOLD_SLACK_MS = 100;

/** What the actors learnt about one job; only calls that resolved count. */
interface JobRecord {
  group: string;
  /** When its submit was first sent, and when one was acknowledged (0 while none was). */
  sentAt: number;
  ackedAt: number;
  /** When each acknowledged completion (true) came back, the drain's included. */
  completedAt: number[];
  /** Outcomes of acknowledged fails (stale ones left out). */
  failed: FailOutcome[];
  /** A cancel was sent (whatever came back): the job may be gone without a completion. */
  cancelSent: boolean;
  cancelAcked: boolean;
}

/** Every job the actors submitted, what they were told, and what was refused. */
class Ledger {
  readonly jobs = new Map<string, JobRecord>();
  /** Ids of acknowledged submits, in order (what cancel picks from). */
  readonly acked: string[] = [];
  /** Jobs an acknowledged fail sent to the dead set, not yet retried. */
  readonly dead: string[] = [];
  /** Ids a claim handed out that no actor submitted. */
  readonly phantoms = new Set<string>();
  /** Refused calls: `${op} ${code or message}` -> count. */
  readonly refusals = new Map<string, number>();
  /** Resolved calls by operation. */
  readonly calls = new Map<string, number>();
  /** Acknowledgements that said no: stale tokens, a cancel of an active job, a retryDead of a live one. */
  refusedByServer = 0;
  /** Every acknowledged completion: the job's lane, when the call went out and when it was acknowledged. */
  readonly completions: { group: string; sent: number; at: number }[] = [];
  /** The longest call, resolved or refused: how long, which, when it was sent. */
  slowest = { ms: 0, op: '', at: 0 };

  took(op: string, at: number): void {
    const ms = Date.now() - at;
    if (ms > this.slowest.ms) this.slowest = { ms, op, at };
  }

  sent(id: string, group: string): void {
    if (!this.jobs.has(id)) this.jobs.set(id, { group, sentAt: Date.now(), ackedAt: 0, completedAt: [], failed: [], cancelSent: false, cancelAcked: false });
  }

  ackSubmit(id: string): void {
    const r = this.jobs.get(id)!;
    if (r.ackedAt > 0) return;
    r.ackedAt = Date.now();
    this.acked.push(id);
  }

  completed(id: string, sent: number): void {
    const r = this.jobs.get(id);
    if (!r) return;
    r.completedAt.push(Date.now());
    this.completions.push({ group: r.group, sent, at: Date.now() });
  }

  /** The record of a claimed job; a job no actor submitted is a phantom. */
  claimed(job: LaneJob): JobRecord | undefined {
    const r = this.jobs.get(job.id);
    if (!r) this.phantoms.add(job.id);
    return r;
  }

  resolved(op: string): void {
    this.calls.set(op, (this.calls.get(op) ?? 0) + 1);
  }

  refused(op: string, err: unknown): void {
    const why = `${op} ${(err as { code?: string }).code ?? (err as Error).message}`;
    this.refusals.set(why, (this.refusals.get(why) ?? 0) + 1);
  }

  get refusedCalls(): number {
    return [...this.refusals.values()].reduce((a, b) => a + b, 0);
  }
}

/**
 * One process's random mix of calls on the queue, one at a time: submits (with its own ids, a
 * refused one sent again with the same ids until it is acknowledged), claims whose jobs are
 * completed one by one or together, failed (to a retry, or dead at once) or abandoned, cancels,
 * retries of dead jobs and reaps.
 */
class Actor {
  private stopping = false;
  private readonly done: Promise<void>;
  /** Submits refused so far, each sent again until it is acknowledged. */
  private readonly unsent: { id: string; group: string }[][] = [];
  private readonly rnd: () => number;
  private n = 0;

  constructor(private readonly name: string, private readonly lanes: LanesService, private readonly queue: string,
    private readonly groups: string[], private readonly ledger: Ledger, seed: number) {
    this.rnd = seeded(seed);
    this.done = this.run();
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      if (this.unsent.length > 0) await this.submit(this.unsent.shift()!);
      await this.step();
      await pause(1 + Math.floor(this.rnd() * 3));
    }
  }

  private pick<T>(xs: T[]): T {
    return xs[Math.floor(this.rnd() * xs.length)];
  }

  private async step(): Promise<void> {
    const r = this.rnd();
    if (r < 0.22) await this.submit([this.fresh()]);
    else if (r < 0.3) await this.submit(Array.from({ length: 2 + Math.floor(this.rnd() * 5) }, () => this.fresh()));
    else if (r < 0.8) await this.claimAndAct();
    else if (r < 0.88) await this.cancel();
    else if (r < 0.95) await this.retryDead();
    else await this.call('reap', () => this.lanes.reap(this.queue));
  }

  private fresh(): { id: string; group: string } {
    const job = { id: mintJobId(), group: this.pick(this.groups) };
    this.ledger.sent(job.id, job.group);
    return job;
  }

  /** A call whose refusal only counts (it changed something or not: the end's audit tells). */
  private async call<T>(op: string, run: () => Promise<T>): Promise<T | undefined> {
    const at = Date.now();
    try {
      const out = await run();
      this.ledger.resolved(op);
      return out;
    } catch (err) {
      this.ledger.refused(op, err);
      return undefined;
    } finally {
      this.ledger.took(op, at);
    }
  }

  private async submit(batch: { id: string; group: string }[]): Promise<void> {
    const payload = (id: string) => ({ by: this.name, n: this.n++, id });
    const ok = batch.length === 1
      ? await this.call('submit', () => this.lanes.submit(this.queue, batch[0].group, payload(batch[0].id), { jobId: batch[0].id }))
      : await this.call('submitMany', () => this.lanes.submitMany(this.queue, batch.map((j) => ({ group: j.group, payload: payload(j.id), opts: { jobId: j.id } }))));
    if (ok === undefined) {
      this.unsent.push(batch);
      await pause(20);
      return;
    }
    for (const j of batch) this.ledger.ackSubmit(j.id);
  }

  private async claimAndAct(): Promise<void> {
    const got = await this.call('claimMany', () => this.lanes.claimMany(this.queue, 1 + Math.floor(this.rnd() * 6), { leaseMs: LEASE_MS }));
    if (!got) return;
    const together: LaneJob[] = [];
    for (const job of got.jobs) {
      const rec = this.ledger.claimed(job);
      const r = this.rnd();
      if (r < 0.5) {
        const sent = Date.now();
        const ok = await this.call('complete', () => this.lanes.complete(this.queue, job.id, job.attempt));
        if (ok === true) this.ledger.completed(job.id, sent);
        else if (ok === false) this.ledger.refusedByServer++;
      } else if (r < 0.75) {
        together.push(job);
      } else if (r < 0.93) {
        const dead = r >= 0.88;
        const outcome = await this.call('fail', () => this.lanes.fail(this.queue, job.id, job.attempt, 'a random failure', dead ? { dead } : undefined));
        if (outcome === 'stale') this.ledger.refusedByServer++;
        else if (outcome !== undefined) rec?.failed.push(outcome);
        if (outcome === 'dead') this.ledger.dead.push(job.id);
      }
      // NOTE: else abandoned: its lease runs out and a reap (an actor's, or the drain's) hands it back.
    }
    if (together.length === 0) return;
    const sent = Date.now();
    const oks = await this.call('completeMany', () => this.lanes.completeMany(this.queue, together.map((j) => ({ jobId: j.id, token: j.attempt }))));
    oks?.forEach((ok, i) => {
      if (ok) this.ledger.completed(together[i].id, sent);
      else this.ledger.refusedByServer++;
    });
  }

  private async cancel(): Promise<void> {
    if (this.ledger.acked.length === 0) return;
    const id = this.pick(this.ledger.acked);
    const rec = this.ledger.jobs.get(id)!;
    if (rec.completedAt.length > 0) return;
    rec.cancelSent = true;
    const ok = await this.call('cancel', () => this.lanes.cancel(this.queue, id));
    if (ok === true) rec.cancelAcked = true;
    else if (ok === false) this.ledger.refusedByServer++;
  }

  private async retryDead(): Promise<void> {
    if (this.ledger.dead.length === 0) return;
    const id = this.ledger.dead.splice(Math.floor(this.rnd() * this.ledger.dead.length), 1)[0];
    const ok = await this.call('retryDead', () => this.lanes.retryDead(this.queue, id));
    if (ok === undefined) this.ledger.dead.push(id);
    else if (!ok) this.ledger.refusedByServer++;
  }

  /** Stops after the call under way, then sends the refused submits until each is acknowledged. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.done;
    await waitFor(`${this.name}'s refused submits acknowledged`, async () => {
      while (this.unsent.length > 0) {
        const before = this.unsent.length;
        await this.submit(this.unsent.shift()!);
        if (this.unsent.length >= before) return false;
      }
      return true;
    }, { timeoutMs: 15_000, intervalMs: 100 });
  }
}

/** Each shard's bookkeeping (see laneConsistency), its problems named by shard, and the leases held. */
async function shardConsistency(client: Cluster, k: LaneKeys, shards: number): Promise<{ problems: string[]; leased: number }> {
  const each = await Promise.all(Array.from({ length: shards }, (_, i) => laneConsistency(client, k.shardKeys(i))));
  return { problems: each.flatMap((c, i) => c.problems.map((p) => `shard ${i}: ${p}`)), leased: each.reduce((n, c) => n + c.leased, 0) };
}

/**
 * Runs everything left in the queue to completion (dead jobs retried, expired leases reaped),
 * each completion acknowledged into the ledger; returns how many jobs it completed.
 */
async function drainAll(lanes: LanesService, queue: string, ledger: Ledger): Promise<number> {
  const start = Date.now();
  let drained = 0;
  for (;;) {
    for (const job of await lanes.dead(queue, { count: 1_000 })) await lanes.retryDead(queue, job.id);
    const { jobs } = await lanes.claimMany(queue, 200, { leaseMs: 30_000 });
    if (jobs.length > 0) {
      for (const job of jobs) ledger.claimed(job);
      const oks = await lanes.completeMany(queue, jobs.map((j) => ({ jobId: j.id, token: j.attempt })));
      expect(oks).toEqual(jobs.map(() => true));
      for (const job of jobs) ledger.completed(job.id, Date.now());
      drained += jobs.length;
      continue;
    }
    const s = await lanes.stats(queue);
    if (s.pending + s.scheduled + s.active + s.dead === 0) return drained;
    if (Date.now() - start > 15_000) throw new Error(`the drain is stuck: ${JSON.stringify(s)}`);
    if (s.active > 0) await lanes.reap(queue);
    await pause(50);
  }
}

/** Each job's state now ('gone' when the queue does not hold it: cancelled, or lost), read 200 at a time. */
async function endsOf(lanes: LanesService, queue: string, ids: string[]): Promise<Map<string, string>> {
  const ends = new Map<string, string>();
  for (let i = 0; i < ids.length; i += 200) {
    const part = ids.slice(i, i + 200);
    (await Promise.all(part.map((id) => lanes.job(queue, id)))).forEach((info, j) => ends.set(part[j], info?.state ?? 'gone'));
  }
  return ends;
}

/**
 * Conservation through a Cluster failover: two processes run a seeded random mix of calls on a
 * queue (unsharded, then spread over six shards on the three masters) while the master of its
 * shard 0 (which holds the shard map too) is SIGKILLed with its replica held behind, its replica
 * is promoted, and the old master comes back as the replica; then everything left is drained and
 * each acknowledged job's end is read. Prints failover and recovery times, what was acknowledged,
 * refused and lost, jobs completed twice, and whether each shard's bookkeeping is consistent.
 * FAULT_SEED=n replays a run's choices (not its timing).
 */
describe.each([['an unsharded queue', 1], ['a queue of shards(q, 6)', 6]])('faults: Redis Cluster failover (3 masters, 1 replica each), %s', (label, SHARDS) => {
  let cluster: TestCluster | undefined;
  const apps: INestApplication[] = [];
  const opened: Cluster[] = [];

  afterEach(async () => {
    await Promise.all(apps.splice(0).map((a) => a.close()));
    await Promise.all(opened.splice(0).map((c) => closeRedisClient(c)));
    await cluster?.stop();
    cluster = undefined;
  });

  const run = async (what: string, options: EchoMqModuleOptions): Promise<void> => {
    const seed = Number(process.env.FAULT_SEED ?? Date.now() % 1_000_000);
    cluster = await TestCluster.start(['--cluster-require-full-coverage', 'no'], { replicas: true, heldLinks: true, nodeTimeoutMs: 2_000 });
    const seedNode = { host: '127.0.0.1', port: cluster.nodes[0].port };
    const boot = async () => {
      const { app } = await bootApp('', [], {
        connection: { cluster: [seedNode] }, callTimeoutMs: 2_000, keepCompletedMs: 600_000, maxAttempts: 4, backoff: { delayMs: 20 }, ...options,
      });
      apps.push(app);
      return app.get(LanesService);
    };
    const [a, b, auditor] = [await boot(), await boot(), await boot()];
    const q = testQueue();
    if (SHARDS > 1) await auditor.shards(q, SHARDS);
    const k = auditor.keysOf(q);
    const owners = await Promise.all(Array.from({ length: SHARDS }, (_, i) => cluster!.ownerOf(calculateSlot(k.shardKeys(i).ring))));
    if (SHARDS > 1) expect(new Set(owners).size).toBe(3);
    // NOTE: the master of shard 0, which holds the shard map (and every key of an unsharded queue).
    const victim = owners[0];
    const groups = lanesPerShard(SHARDS, 24 / SHARDS, 'lane-').flat();
    const onVictim = (group: string) => owners[shardOf(group, SHARDS)] === victim;

    const ledger = new Ledger();
    const actors = [new Actor('a', a, q, groups, ledger, seed), new Actor('b', b, q, groups, ledger, seed + 1)];
    let stopped = false;
    try {
      await waitFor('400 acknowledged submits', () => ledger.acked.length >= 400, { timeoutMs: 20_000, intervalMs: 10 });
      const heir = await cluster.heirOf(victim);
      const holdAt = Date.now();
      cluster.hold(victim);
      await pause(HOLD_MS);
      const killedAt = Date.now();
      await cluster.crash(victim);
      await cluster.failedOver(victim, heir);
      const promotedAt = Date.now();
      await cluster.rejoin(victim);
      const rejoinedAt = Date.now();
      const ackedAfter = () => [...ledger.jobs.values()].filter((r) => r.sentAt > killedAt && r.ackedAt > 0 && onVictim(r.group));
      await waitFor('200 submits into the old master\'s lanes acknowledged after the kill', () => ackedAfter().length >= 200, { timeoutMs: 20_000, intervalMs: 10 });
      // NOTE: calls sent after the kill: a reply read just after it was sent before it.
      const completedAfter = ledger.completions.filter((c) => onVictim(c.group) && c.sent > killedAt).map((c) => c.at);
      const servedMeanwhile = [...ledger.jobs.values()].filter((r) => !onVictim(r.group) && r.ackedAt > killedAt && r.ackedAt < promotedAt).length
        + ledger.completions.filter((c) => !onVictim(c.group) && c.at > killedAt && c.at < promotedAt).length;
      await pause(500);
      await Promise.all(actors.map((x) => x.stop()));
      stopped = true;

      // Each shard's bookkeeping as the actors left it (abandoned leases included), repaired by a reap if it needs it.
      const client = createRedisClient({ cluster: [seedNode] }, 'audit') as Cluster;
      opened.push(client);
      let consistency = await shardConsistency(client, k, SHARDS);
      let repair = '';
      if (consistency.problems.length > 0) {
        const reaped = await auditor.reap(q);
        const after = await shardConsistency(client, k, SHARDS);
        repair = `; ${consistency.problems.join(', ')}; reap returned ${reaped} and left ${after.problems.length ? after.problems.join(', ') : 'it consistent'}`;
        consistency = after;
      }

      // Everything left run to completion, then each acknowledged job's end: completed (its row is kept), or gone after a cancel.
      const drained = await drainAll(auditor, q, ledger);
      const ends = await endsOf(auditor, q, ledger.acked);
      const inWindow = (at: number, group: string) => onVictim(group) && at >= holdAt - HOLD_SLACK_MS && at <= killedAt + HOLD_SLACK_MS;
      const lost = ledger.acked.filter((id) => ends.get(id) !== 'completed' && !ledger.jobs.get(id)!.cancelSent);
      const twice = ledger.acked.filter((id) => ledger.jobs.get(id)!.completedAt.length > 1);
      const cancelsUndone = ledger.acked.filter((id) => ledger.jobs.get(id)!.cancelAcked && ends.get(id) === 'completed').length;
      const heldAcks = ledger.acked.filter((id) => inWindow(ledger.jobs.get(id)!.ackedAt, ledger.jobs.get(id)!.group)).length;
      const firstAck = Math.min(...ackedAfter().map((r) => r.ackedAt));
      const victimShards = owners.filter((o) => o === victim).length;

      report(`cluster failover, ${label}, ${what} (seed ${seed}): master of ${victimShards} of ${SHARDS} shard(s) killed after its replica was held ${HOLD_MS} ms; `
        + `failover done (every node agrees) in ${promotedAt - killedAt} ms, old master back as replica at ${rejoinedAt - killedAt} ms; recovery ${firstAck - killedAt} ms to the first `
        + `acknowledged submit into its lanes, ${completedAfter.length ? Math.min(...completedAfter) - killedAt : 'no'} ms to a completion there; `
        + `${servedMeanwhile} submits and completions acknowledged on the other masters' lanes meanwhile; `
        + `acknowledged: ${ledger.acked.length} submits (${heldAcks} into its lanes while held), ${[...ledger.calls].map(([op, n]) => `${op} ${n}`).join(', ')}; `
        + `said no ${ledger.refusedByServer}; slowest call ${ledger.slowest.op} ${ledger.slowest.ms} ms (sent at ${ledger.slowest.at - killedAt} ms); refused ${ledger.refusedCalls} (${[...ledger.refusals].map(([w, n]) => `${w} ${n}`).join(', ') || 'none'}); `
        + `drained ${drained}; acknowledged submits lost ${lost.length}; completed twice ${twice.length}; acknowledged cancels undone ${cancelsUndone}; phantoms ${ledger.phantoms.size}; `
        + `leases at the stop ${consistency.leased}; shards ${consistency.problems.length === 0 && !repair ? 'consistent' : 'INCONSISTENT'}${repair}`);

      expect([...ledger.phantoms]).toEqual([]);
      expect(firstAck - killedAt).toBeLessThan(15_000);
      expect(completedAfter.length).toBeGreaterThan(0);
      expect(consistency.problems).toEqual([]);
      /** A job as a failure names it: where it ends, whether its lane was on the old master, and when (ms after the hold) it was acknowledged. */
      const when = (id: string, at: (r: JobRecord) => number | number[]) => {
        const r = ledger.jobs.get(id)!;
        const t = at(r);
        return { id, end: ends.get(id), onVictim: onVictim(r.group), killedAt: killedAt - holdAt, sinceHold: Array.isArray(t) ? t.map((x) => x - holdAt) : t - holdAt };
      };
      if (options.durability) {
        // Nothing acknowledged is lost, and no job is completed twice (a lost completion would run it again).
        expect(lost.map((id) => when(id, (r) => r.ackedAt))).toEqual([]);
        expect(twice.map((id) => when(id, (r) => r.completedAt))).toEqual([]);
      } else {
        // Without durability only what the old master acknowledged while its replica was held may be lost.
        expect(lost.filter((id) => !inWindow(ledger.jobs.get(id)!.ackedAt, ledger.jobs.get(id)!.group)).map((id) => when(id, (r) => r.ackedAt))).toEqual([]);
        expect(twice.filter((id) => !inWindow(ledger.jobs.get(id)!.completedAt[0], ledger.jobs.get(id)!.group)).map((id) => when(id, (r) => r.completedAt[0]))).toEqual([]);
      }
    } finally {
      if (!stopped) await Promise.all(actors.map((x) => x.stop().catch(() => undefined)));
    }
  };

  it('without durability: only what the old master acknowledged while its replica was held behind may be lost', () => run('without durability', {}));

  // NOTE: each WAIT goes to the master of the written shard's slot, on the Cluster client's own
  // connection to it (lib/redis/durability.ts), one per master a call wrote to.
  it('with durability { replicas: 1 }: nothing acknowledged is lost, no job completed twice', () =>
    run('with durability { replicas: 1, timeoutMs: 500 }', { durability: { replicas: 1, timeoutMs: 500 } }));
});
