import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import { Observable, tap } from 'rxjs';
import type { LaneJob } from '@echomq/nestjs';
import type { Guess } from './guess';
import type { GuessResult } from './score.service';

/**
 * Logs every scored guess: an interceptor on the worker, as on a controller. It acts on jobs only
 * (context type 'echomq'), so it could be registered globally without touching HTTP requests.
 */
@Injectable()
export class GuessLogInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Guesses');

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType<string>() !== 'echomq') return next.handle();
    const job = context.getArgByIndex<LaneJob<Guess>>(0);
    const started = Date.now();
    return next.handle().pipe(tap((result) => {
      const r = result as GuessResult;
      this.logger.log(`${job.payload.player} ${job.payload.guess}: ${r.hits} hit(s), ${r.near} near, +${r.points} (${Date.now() - started} ms, attempt ${job.attempt})`);
    }));
  }
}
