import { Body, Controller, Get, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { LaneInfo, LanesService } from '@echomq/nestjs';
import { Guess, GUESS_QUEUE, ParseGuessPipe } from './guess';
import { Scoreboard, ScoreService } from './score.service';

@Controller()
export class GuessesController {
  constructor(private readonly lanes: LanesService, private readonly scores: ScoreService) {}

  /** Queues a guess on the player's own lane; ScoreWorker scores it shortly after. */
  @Post('guesses')
  @HttpCode(HttpStatus.ACCEPTED)
  async submit(@Body(ParseGuessPipe) guess: Guess): Promise<{ jobId: string }> {
    const jobId = await this.lanes.submit(GUESS_QUEUE, guess.player, guess);
    return { jobId };
  }

  /** Every player's lane: pending and active guesses, weight, limit, paused, inRing. */
  @Get('lanes')
  listLanes(): Promise<LaneInfo[]> {
    return this.lanes.lanes(GUESS_QUEUE);
  }

  /** The scoreboard of the current game. */
  @Get('scores')
  scoreboard(): Scoreboard {
    return this.scores.board();
  }
}
