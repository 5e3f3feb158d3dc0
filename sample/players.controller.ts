import { Body, Controller, Delete, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import { LaneInfo, LanesService } from '@echomq/nestjs';
import { GUESS_QUEUE, ParsePlayerPipe } from './guess';

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
  constructor(private readonly lanes: LanesService) {}

  @Post('pause')
  @HttpCode(HttpStatus.OK)
  async pause(@Param('player', ParsePlayerPipe) player: string, @Body() body: PauseBody = {}): Promise<LaneInfo> {
    await this.lanes.pause(GUESS_QUEUE, player, { forMs: body?.forMs, reason: body?.reason });
    return this.lanes.lane(GUESS_QUEUE, player);
  }

  @Post('resume')
  @HttpCode(HttpStatus.OK)
  async resume(@Param('player', ParsePlayerPipe) player: string): Promise<LaneInfo> {
    await this.lanes.resume(GUESS_QUEUE, player);
    return this.lanes.lane(GUESS_QUEUE, player);
  }

  @Post('rate')
  @HttpCode(HttpStatus.OK)
  async rate(@Param('player', ParsePlayerPipe) player: string, @Body() body: RateBody = {}): Promise<LaneInfo> {
    await this.lanes.rate(GUESS_QUEUE, player, { max: body?.max as number, perMs: body?.perMs as number });
    return this.lanes.lane(GUESS_QUEUE, player);
  }

  @Delete('rate')
  @HttpCode(HttpStatus.OK)
  async unrate(@Param('player', ParsePlayerPipe) player: string): Promise<LaneInfo> {
    await this.lanes.rate(GUESS_QUEUE, player, null);
    return this.lanes.lane(GUESS_QUEUE, player);
  }
}
