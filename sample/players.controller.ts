import { Controller, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import { LaneInfo, LanesService } from '@echomq/nestjs';
import { GUESS_QUEUE, ParsePlayerPipe } from './guess';

/** Moderation: hold a player's guesses (they stay queued) and let them through again. */
@Controller('players/:player')
export class PlayersController {
  constructor(private readonly lanes: LanesService) {}

  @Post('pause')
  @HttpCode(HttpStatus.OK)
  async pause(@Param('player', ParsePlayerPipe) player: string): Promise<LaneInfo> {
    await this.lanes.pause(GUESS_QUEUE, player);
    return this.lanes.lane(GUESS_QUEUE, player);
  }

  @Post('resume')
  @HttpCode(HttpStatus.OK)
  async resume(@Param('player', ParsePlayerPipe) player: string): Promise<LaneInfo> {
    await this.lanes.resume(GUESS_QUEUE, player);
    return this.lanes.lane(GUESS_QUEUE, player);
  }
}
