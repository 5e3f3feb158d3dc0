import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { EchoMqErrorFilter, EchoMqModule } from '@echomq/nestjs';
import { EchoMqHealthIndicator } from '@echomq/nestjs/health';
import { EchoMqMetricsModule } from '@echomq/nestjs/metrics';
import { EchoMqDashboardModule } from '@echomq/nestjs/dashboard';
import { DashboardTokenGuard } from './dashboard-token.guard';
import { GUESS_QUEUE } from './guess';
import { GuessesController } from './guesses.controller';
import { HealthController } from './health.controller';
import { MetricsController } from './metrics.controller';
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
    // The guess queue's handle (@InjectQueue(GUESS_QUEUE)) and its defaults, for the controllers'
    // submits and for ScoreWorker: a guess gets two tries, a second after the first.
    EchoMqModule.registerQueue({ name: GUESS_QUEUE, defaults: { maxAttempts: 2, backoff: { delayMs: 1_000 } } }),
    // NOTE: the queues' totals and gauges are read from the server at each scrape of GET /metrics.
    EchoMqMetricsModule.forRoot(),
    TerminusModule,
    // The live operator page at /echomq; it may change lanes, so it needs the token guard.
    EchoMqDashboardModule.forRoot({ path: '/echomq', queues: [GUESS_QUEUE], readOnly: false, guard: DashboardTokenGuard }),
  ],
  controllers: [GuessesController, PlayersController, MetricsController, HealthController],
  providers: [
    EchoMqHealthIndicator,
    ScoreService,
    ScoreWorker,
    { provide: SCORING_COST_MS, useFactory: () => Math.max(Number(process.env.SCORING_COST_MS) || 0, 0) },
    // Bad input from a request (a bad player name, a bad pause) is a 400, a server in trouble a 503.
    { provide: APP_FILTER, useClass: EchoMqErrorFilter },
  ],
})
export class AppModule {}
