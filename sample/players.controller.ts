import { Body, Controller, Delete, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import { InjectQueue, LaneInfo, LaneQueue } from '@echomq/nestjs';
import { Guess, GUESS_QUEUE, ParsePlayerPipe } from './guess';

/** What the pause route takes: both optional (a body of `{}` or none pauses until resumed). */
interface PauseBody {
  forMs?: number;
  reason?: string;
}

/** What the rate route takes: at most `max` guesses scored per `perMs` ms. */
interface RateBody {
  max?: number;
  perMs?: number;
}

/**
 * Moderation: hold a player's guesses (they stay queued), for a while or until let through again,
 * and cap how fast a player's guesses are scored. The library checks the values (a bad one is a 400).
 */
@Controller('players/:player')
export class PlayersController {
  constructor(@InjectQueue(GUESS_QUEUE) private readonly guesses: LaneQueue<Guess>) {}

  @Post('pause')
  @HttpCode(HttpStatus.OK)
  async pause(@Param('player', ParsePlayerPipe) player: string, @Body() body: PauseBody = {}): Promise<LaneInfo> {
    await this.guesses.pause(player, { forMs: body?.forMs, reason: body?.reason });
    return this.guesses.lane(player);
  }

  @Post('resume')
  @HttpCode(HttpStatus.OK)
  async resume(@Param('player', ParsePlayerPipe) player: string): Promise<LaneInfo> {
    await this.guesses.resume(player);
    return this.guesses.lane(player);
  }

  @Post('rate')
  @HttpCode(HttpStatus.OK)
  async rate(@Param('player', ParsePlayerPipe) player: string, @Body() body: RateBody = {}): Promise<LaneInfo> {
    await this.guesses.rate(player, { max: body?.max as number, perMs: body?.perMs as number });
    return this.guesses.lane(player);
  }

  @Delete('rate')
  @HttpCode(HttpStatus.OK)
  async unrate(@Param('player', ParsePlayerPipe) player: string): Promise<LaneInfo> {
    await this.guesses.rate(player, null);
    return this.guesses.lane(player);
  }
}
