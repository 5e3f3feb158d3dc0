import { Inject, Injectable, UseInterceptors } from '@nestjs/common';
import { setTimeout as sleep } from 'timers/promises';
import { LaneConsumer, LaneJob, LaneWorker } from '@echomq/nestjs';
import { Guess, GUESS_QUEUE } from './guess';
import { GuessLogInterceptor } from './guess-log.interceptor';
import { GuessResult, ScoreService } from './score.service';

/** Token of the simulated cost of scoring one guess, in ms (think: a call to a slow service). */
export const SCORING_COST_MS = 'SCORING_COST_MS';

/**
 * Scores the guesses. The queue serves the players' lanes in turn, so a player who floods the
 * game with guesses only deepens their own lane and never holds up anyone else's guesses. Its lease,
 * attempts and backoff are the queue's defaults (registerQueue in app.module.ts).
 */
@LaneConsumer(GUESS_QUEUE, { concurrency: 4 })
@UseInterceptors(GuessLogInterceptor)
@Injectable()
export class ScoreWorker extends LaneWorker<Guess> {
  constructor(
    private readonly scores: ScoreService,
    @Inject(SCORING_COST_MS) private readonly costMs: number,
  ) {
    super();
  }

  /**
   * Returning completes the job, and what it returns is the job's result (kept a while: see
   * keepCompletedMs in app.module.ts; the interceptor logs it); throwing would fail it (retried,
   * then dead-lettered).
   */
  override async handle(job: LaneJob<Guess>): Promise<GuessResult> {
    if (this.costMs > 0) await sleep(this.costMs);
    // NOTE: the player comes from the payload, not job.group: the lane is a scheduling choice
    // (normally the player's own), and the score must not depend on it.
    const { player, guess } = job.payload;
    return this.scores.score(player, guess);
  }
}
