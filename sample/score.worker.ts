import { Inject, Injectable, Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'timers/promises';
import { LaneConsumer, LaneJob } from '@echomq/nestjs';
import { Guess, GUESS_QUEUE } from './guess';
import { GuessResult, ScoreService } from './score.service';

/** Token of the simulated cost of scoring one guess, in ms (think: a call to a slow service). */
export const SCORING_COST_MS = 'SCORING_COST_MS';

/**
 * Scores the guesses. The queue serves the players' lanes in turn, so a player who floods the
 * game with guesses only deepens their own lane and never holds up anyone else's guesses.
 */
@LaneConsumer(GUESS_QUEUE, { concurrency: 4 })
@Injectable()
export class ScoreWorker {
  private readonly logger = new Logger(ScoreWorker.name);

  constructor(
    private readonly scores: ScoreService,
    @Inject(SCORING_COST_MS) private readonly costMs: number,
  ) {}

  /**
   * Returning completes the job, and what it returns is the job's result (kept a while: see
   * keepCompletedMs in app.module.ts); throwing would fail it (retried, then dead-lettered).
   */
  async handle(job: LaneJob<Guess>): Promise<GuessResult> {
    if (this.costMs > 0) await sleep(this.costMs);
    // NOTE: the player comes from the payload, not job.group: the lane is a scheduling choice
    // (normally the player's own), and the score must not depend on it.
    const { player, guess } = job.payload;
    const result = this.scores.score(player, guess);
    this.logger.debug(`${player} ${guess}: ${result.hits} hit(s), ${result.near} near, +${result.points}`);
    return result;
  }
}
