// Compiled by test/unit/lane-queue-types.spec.ts (never run): the handle's type follows LanesService.
import type { LaneJob, LaneQueue } from '../../../lib';
import type { LanesService } from '../../../lib/lanes.service';
import type { LaneQueueMethod, QueueMethodName, UnboundQueueMethod } from '../../../lib/queues/lane-queue';

/** Queue methods of `S` that a handle binds by neither list. */
export type MissingFromHandle<S> = Exclude<QueueMethodName<S>, LaneQueueMethod | UnboundQueueMethod>;
/** Compiles only when `S` has no queue method the handle lacks (the error names the missing ones). */
export type EveryQueueMethodBound<S> = [MissingFromHandle<S>] extends [never] ? true : { missing: MissingFromHandle<S> };

export const bound: EveryQueueMethodBound<LanesService> = true;

interface Guess { player: string; guess: string }
declare const q: LaneQueue<Guess>;

export async function payloadsAreTyped(): Promise<void> {
  await q.submit('ana', { player: 'ana', guess: 'x' }, { maxAttempts: 2 });
  // @ts-expect-error the payload is a Guess
  await q.submit('ana', { player: 'ana' });
  // @ts-expect-error the queue is bound: no queue argument
  await q.lane('cm', 'ana');
  await q.submitMany([{ group: 'ana', payload: { player: 'ana', guess: 'x' } }]);
  // @ts-expect-error items carry Guess payloads
  await q.submitMany([{ group: 'ana', payload: 1 }]);
  const job = await q.claim({ leaseMs: 1_000 });
  const player: string | undefined = job?.payload.player;
  const many: LaneJob<Guess>[] = (await q.claimMany(3)).jobs;
  const turn: LaneJob<Guess>[] = await q.wclaim();
  const turns: LaneJob<Guess>[][] = (await q.wclaimMany(2)).turns;
  const info = await q.job('JOB00000000000');
  const guess: string | undefined = info?.payload.guess;
  const done = await q.waitFor('JOB00000000000', { timeoutMs: 1_000 });
  const dead: LaneJob<Guess>[] = await q.dead();
  const stats: number = (await q.stats()).pending;
  void [player, many, turn, turns, guess, done, dead, stats];
}
