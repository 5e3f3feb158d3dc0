import { Body, Controller, Get, HttpCode, HttpStatus, NotFoundException, Param, Post, Query, Res } from '@nestjs/common';
import { InjectQueue, isJobId, JobInfo, LaneInfo, LanePosition, LaneQueue } from '@echomq/nestjs';
import { Guess, GUESS_QUEUE, ParseGuessPipe } from './guess';
import { Scoreboard, ScoreService } from './score.service';

/** How long `POST /guesses?wait=1` waits for the score. */
const WAIT_MS = 10_000;

/** What the guess routes say about one guess. */
export interface GuessStatus {
  jobId: string;
  player: string;
  state: JobInfo['state'];
  /** Pending: its place in line. */
  position?: { ahead: number; laneRank: number; exact: boolean; estimatedWaitMs: number | null };
  /** Scored: hits, near misses, points. */
  score?: unknown;
  /** Failed for good: why. */
  error?: string;
}

function statusOf(info: JobInfo, position: LanePosition | null): GuessStatus {
  const out: GuessStatus = { jobId: info.id, player: info.group, state: info.state };
  if (position) {
    out.position = { ahead: position.ahead, laneRank: position.laneRank, exact: position.exact, estimatedWaitMs: position.estimatedWaitMs };
  }
  if (info.state === 'completed') out.score = info.result;
  if (info.state === 'dead') out.error = info.lastError;
  return out;
}

@Controller()
export class GuessesController {
  constructor(@InjectQueue(GUESS_QUEUE) private readonly guesses: LaneQueue<Guess>, private readonly scores: ScoreService) {}

  /**
   * Queues a guess on the player's own lane; ScoreWorker scores it shortly after. With `?wait=1`
   * the answer waits for the score (up to 10 s; past that it is the usual 202 with the job id).
   */
  @Post('guesses')
  @HttpCode(HttpStatus.ACCEPTED)
  async submit(
    @Body(ParseGuessPipe) guess: Guess,
    @Query('wait') wait: string | undefined,
    @Res({ passthrough: true }) res: { status(code: number): unknown },
  ): Promise<{ jobId: string } | GuessStatus> {
    // NOTE: a room is its players' tenant: a room of 20 players shares one turn of the ring with a lone player's.
    const jobId = await this.guesses.submit(guess.player, guess, guess.room === undefined ? undefined : { tenant: guess.room });
    if (wait !== '1' && wait !== 'true') return { jobId };
    const info = await this.guesses.waitFor(jobId, { timeoutMs: WAIT_MS }).catch((err: { code?: string }) => {
      if (err?.code === 'TIMEOUT') return null;
      throw err;
    });
    if (!info) return { jobId };
    res.status(HttpStatus.OK);
    return statusOf(info, null);
  }

  /** A guess's state: while pending its place in line and an estimated wait, once scored its score. */
  @Get('guesses/:id')
  async status(@Param('id') id: string): Promise<GuessStatus> {
    if (!isJobId(id)) throw new NotFoundException(`No guess ${id}.`);
    const info = await this.guesses.job(id);
    if (!info) throw new NotFoundException(`No guess ${id} (never queued, or scored more than ten minutes ago).`);
    const position = info.state === 'pending' ? await this.guesses.position(id) : null;
    return statusOf(info, position);
  }

  /** Every player's lane: pending and active guesses, weight, limit, paused, inRing. */
  @Get('lanes')
  listLanes(): Promise<LaneInfo[]> {
    return this.guesses.lanes();
  }

  /** The scoreboard of the current game. */
  @Get('scores')
  scoreboard(): Scoreboard {
    return this.scores.board();
  }
}
