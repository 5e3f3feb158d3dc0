import type { LoggerService } from '@nestjs/common';
import { adoptedLanes, evictionPolicyWarning } from '../echomq.messages';
import type { JobIdNodeLease } from '../ids/node-lease';
import type { RedisClient } from '../scripts/lane-scripts';
import type { LaneContext } from './lane-context';

const SETUP_TIMEOUT_MS = 3_000;
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
  const failed = (err: unknown) => {
    // NOTE: the connections were closed meanwhile: the boot failed elsewhere, nothing to report.
    if (ctx.client.status === 'end') return;
    logger.warn(`Could not index the lanes of a queue written before 0.2; scanLanes, topLanes and stats().pending leave them out until a boot does. If the server refused a command, the ACL user was made for 0.1: grant it +sscan +hscan too (the README's ACL line has every right). ${(err as Error).message}`);
  };
  // NOTE: a connection not up yet (the server is down at boot) has already held the boot for the
  // node lease; the walk then goes on behind the loops once the server answers.
  if (!isReady(ctx.client)) {
    adopting.catch(failed);
    return;
  }
  try {
    await withTimeout(adopting, SETUP_TIMEOUT_MS);
  } catch (err) {
    if (err instanceof NoAnswer) adopting.catch(failed);
    else failed(err);
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
