import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { EchoMqModule } from '@echomq/nestjs';
import { EchoMqErrorFilter } from './echomq-error.filter';
import { GuessesController } from './guesses.controller';
import { PlayersController } from './players.controller';
import { ScoreService } from './score.service';
import { SCORING_COST_MS, ScoreWorker } from './score.worker';

@Module({
  imports: [
    // NOTE: the factory runs at init, so REDIS_URL is read when the app starts, not when this file loads.
    EchoMqModule.forRootAsync({
      useFactory: () => ({
        connection: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
        shutdownTimeoutMs: 5_000,
        // NOTE: a scored guess stays readable (GET /guesses/:id, with its score) for ten minutes.
        keepCompletedMs: 600_000,
      }),
    }),
  ],
  controllers: [GuessesController, PlayersController],
  providers: [
    ScoreService,
    ScoreWorker,
    { provide: SCORING_COST_MS, useFactory: () => Math.max(Number(process.env.SCORING_COST_MS) || 0, 0) },
    { provide: APP_FILTER, useClass: EchoMqErrorFilter },
  ],
})
export class AppModule {}
