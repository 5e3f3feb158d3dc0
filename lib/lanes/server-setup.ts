import type { LoggerService } from '@nestjs/common';
import { adoptedLanes, evictionPolicyWarning } from '../echomq.messages';
import { EchoMqError } from '../errors';
import type { JobIdNodeLease } from '../ids/node-lease';
import type { FairnessOptions } from '../interfaces';
import type { RedisClient } from '../scripts/lane-scripts';
import type { LaneContext } from './lane-context';

const SETUP_TIMEOUT_MS = 3_000;
/** How long a queue's registered fairness that a boot could not set waits before the next try. */
const FAIRNESS_RETRY_MS = 5_000;
/** Lanes read per adoptLanes call: 1.4 ms of server time a call (median; longest 4.1 ms) on a 100,000-lane queue. */
const ADOPT_PAGE = 250;

/**
 * @internal At start-up: takes a job-id node number no other live process holds (so two processes
 * never mint the same id) and warns when the eviction policy could drop queue keys. Says nothing
 * when the connection was closed meanwhile (another part of the boot failed). `startDeadline` (ms
 * since epoch) is the boot's one wait for a server that does not answer.
 */
export async function prepareServer(ctx: LaneContext, nodeLease: JobIdNodeLease, logger: LoggerService, startDeadline?: number): Promise<void> {
  const { client } = ctx;
  try {
    // NOTE: bounded, so an application still boots while the server is unreachable (ioredis
    // queues commands until it reconnects); ids then keep the random node they started with. A
    // server not up yet gets what is left of the boot's one wait (the connection's), not a wait of its own.
    const waitMs = isReady(client) || startDeadline === undefined ? SETUP_TIMEOUT_MS : Math.max(startDeadline - Date.now(), 1);
    await withTimeout(nodeLease.take(), waitMs);
  } catch (err) {
    // NOTE: the connections were closed meanwhile: the boot failed elsewhere, nothing to report.
    if (client.status === 'end') return;
    logger.warn(`Could not take a job-id node number from the server; keeping a random one (${(err as Error).message}).`);
  }
  // NOTE: the server is not reachable yet (the lease above waited for it in vain): no second wait
  // for a check that only warns.
  if (!isReady(client)) {
    logger.log('Redis is not reachable yet, so maxmemory-policy was not checked; make sure it is noeviction.');
    return;
  }
  try {
    const nodes = 'nodes' in client ? (client as { nodes(role: string): RedisClient[] }).nodes('master') : [client];
    const reply = (await withTimeout((nodes[0] ?? client).config('GET', 'maxmemory-policy'), SETUP_TIMEOUT_MS)) as string[];
    const policy = reply?.[1];
    if (policy && policy !== 'noeviction') logger.warn(evictionPolicyWarning(policy));
  } catch {
    if (client.status === 'end') return;
    // NOTE: managed servers often refuse CONFIG; the policy is then the operator's to check.
    logger.log('Could not read maxmemory-policy (CONFIG is refused); make sure it is noeviction.');
  }
}

/**
 * @internal Brings the consumers' queues written before 0.2 into the 0.2 keyspace (lane index and
 * totals; see lua/adoptLanes-11.lua), a page of lanes per call, before the claim loops start: a queue
 * already done costs one call. Waits at most a few seconds, and not at all while the connection is not
 * up (an unreachable server must not hold the boot); the rest then goes on behind the loops, and
 * whatever is left the next boot picks up.
 */
export async function adoptLanes(ctx: LaneContext, queues: string[], logger: LoggerService): Promise<void> {
  const adopting = Promise.all(queues.map(async (queue) => {
    const k = ctx.keysOf(queue);
    let indexed = 0;
    for (;;) {
      const page = await ctx.scripts.adoptLanes(k, ADOPT_PAGE);
      indexed += page.indexed;
      if (page.done) break;
    }
    // NOTE: a new queue, or one 0.2 wrote all along, walks its few pages without a word.
    if (indexed > 0) logger.log(adoptedLanes(queue, indexed));
  }));
  await bootStep(ctx, adopting, (err) => {
    logger.warn(`Could not index the lanes of a queue written before 0.2; scanLanes, topLanes and stats().pending leave them out until a boot does. If the server refused a command, the ACL user was made for 0.1: grant it +sscan +hscan too (the README's ACL line has every right). ${(err as Error).message}`);
  });
}

/**
 * Sets each queue's registered fairness at boot, before the claim loops start (see
 * ClaimLoopOrchestrator), as a bounded step (bootStep): a server that does not answer holds the
 * boot no longer, and the call goes on behind the loops (ioredis sends it first once the server is
 * back). A call the server did not answer in time (callTimeoutMs) is logged and made again every
 * FAIRNESS_RETRY_MS until it is done or the connection is closed. A refusal (a mode compat mode does
 * not take, a server that refuses the script) fails the boot, as it always did, while the boot waits.
 */
export async function bootFairness(ctx: LaneContext, queues: [string, FairnessOptions][], set: (queue: string, fairness: FairnessOptions) => Promise<void>,
  logger: LoggerService): Promise<void> {
  const apply = async (queue: string, fairness: FairnessOptions): Promise<void> => {
    for (;;) {
      try {
        return await set(queue, fairness);
      } catch (err) {
        if (ctx.client.status === 'end' || !(err instanceof EchoMqError) || err.code !== 'UNAVAILABLE') throw err;
        logger.warn(`Could not set the fairness of queue "${queue}" at boot (${err.message}); trying again in ${FAIRNESS_RETRY_MS} ms, its consumers claim meanwhile in the mode it has.`);
        await new Promise((r) => setTimeout(r, FAIRNESS_RETRY_MS).unref());
      }
    }
  };
  const setting = Promise.all(queues.map(([queue, fairness]) => apply(queue, fairness)));
  // NOTE: a refusal of the options comes before any call goes out: it fails the boot even while the
  // connection is not up.
  await Promise.race([setting, new Promise((r) => setImmediate(r))]);
  await bootStep(ctx, setting, (err) => {
    logger.warn(`Could not set a queue's registered fairness at boot: ${(err as Error).message}. Set it with fairness() once the server takes it.`);
  }, true);
}

/**
 * A step of the boot that must not hold it while the server does not answer: awaited at most
 * SETUP_TIMEOUT_MS while the connection is up, not at all while it is not (a connection not up yet
 * has already held the boot for the node lease); the rest goes on behind the claim loops, and
 * `failed` hears why it did not finish (not when the connections were closed meanwhile: the boot
 * failed elsewhere, nothing to report). `fails`: an error while the boot waits fails the boot.
 */
async function bootStep(ctx: LaneContext, step: Promise<unknown>, failed: (err: unknown) => void, fails = false): Promise<void> {
  const report = (err: unknown) => {
    if (ctx.client.status !== 'end') failed(err);
  };
  if (!isReady(ctx.client)) {
    step.catch(report);
    return;
  }
  try {
    await withTimeout(step, SETUP_TIMEOUT_MS);
  } catch (err) {
    if (err instanceof NoAnswer) step.catch(report);
    else if (fails) throw err;
    else report(err);
  }
}

/** Whether the connection is up now (a function, so that the status is read afresh each time). */
const isReady = (client: RedisClient): boolean => client.status === 'ready';

/** What withTimeout rejects with when the time is up (the promise itself may still settle later). */
class NoAnswer extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NoAnswer(ms)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
