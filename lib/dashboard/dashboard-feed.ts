import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import {
  asyncScheduler, concatMap, distinctUntilChanged, exhaustMap, map, merge, Observable, retry, shareReplay, Subject,
  takeUntil, tap, throttleTime, timer,
} from 'rxjs';
import { FEED_COALESCE_MS, FEED_POLL_MS, HISTORY_POINTS, HISTORY_STEP_MS } from './dashboard.constants';
import type { DashboardStats } from './lanes-reads';
import { QueueSnapshot, QueueSnapshotReader } from './queue-snapshot.reader';

/** @internal One point of a queue's totals, for the rate chart. */
export interface HistoryPoint {
  t: number; submitted: number; completed: number; retried: number; dead: number;
}

/** @internal One frame of the live stream: the snapshot and the recent totals. */
export type QueueFrame = QueueSnapshot & { history: HistoryPoint[] };

/**
 * @internal The live stream of each queue, shared by everyone watching it. While someone watches it
 * reads the queue's stats twice a second; when they changed, or a change was made through the
 * page, it reads a snapshot, at most one per `FEED_COALESCE_MS` (changes in between coalesce into
 * the next frame). Nothing runs while nobody watches.
 */
@Injectable()
export class DashboardFeed implements OnModuleDestroy {
  private readonly logger = new Logger('EchoMqDashboard');
  private readonly feeds = new Map<string, Observable<QueueFrame>>();
  private readonly pokes = new Map<string, Subject<void>>();
  private readonly histories = new Map<string, HistoryPoint[]>();
  private readonly destroyed = new Subject<void>();

  constructor(private readonly reader: QueueSnapshotReader) {}

  /** The frames of `queue`: the latest at once, then one per coalesced change. */
  frames(queue: string): Observable<QueueFrame> {
    let feed = this.feeds.get(queue);
    if (!feed) {
      feed = this.build(queue);
      this.feeds.set(queue, feed);
    }
    return feed;
  }

  /** A change was made to `queue` through the page: its watchers get a frame without waiting for the next poll. */
  poke(queue: string): void {
    this.pokes.get(queue)?.next();
  }

  onModuleDestroy(): void {
    // NOTE: ends every open stream, so the HTTP server can close.
    this.destroyed.next();
    this.destroyed.complete();
  }

  private build(queue: string): Observable<QueueFrame> {
    const poke = new Subject<void>();
    this.pokes.set(queue, poke);
    let seq = 0;
    const polled = timer(0, FEED_POLL_MS).pipe(
      exhaustMap(() => this.reader.reads.stats(queue)),
      tap((stats) => this.record(queue, stats)),
      map((stats) => JSON.stringify(stats)),
      distinctUntilChanged(),
    );
    return merge(polled, poke.pipe(map(() => `poke ${++seq}`))).pipe(
      throttleTime(FEED_COALESCE_MS, asyncScheduler, { leading: true, trailing: true }),
      concatMap(() => this.reader.snapshot(queue)),
      map((snapshot) => ({ ...snapshot, history: this.histories.get(queue) ?? [] })),
      retry({
        delay: (err: Error) => {
          this.logger.warn(`Live stream of queue ${JSON.stringify(queue)} failed, retrying in ${FEED_COALESCE_MS} ms: ${err.message}`);
          return timer(FEED_COALESCE_MS);
        },
      }),
      takeUntil(this.destroyed),
      shareReplay({ bufferSize: 1, refCount: true }),
    );
  }

  /** Keeps one point of totals every `HISTORY_STEP_MS` while someone watches. */
  private record(queue: string, stats: DashboardStats): void {
    const points = this.histories.get(queue) ?? [];
    this.histories.set(queue, points);
    const now = Date.now();
    const last = points[points.length - 1];
    if (last && now - last.t < HISTORY_STEP_MS) return;
    const { submitted, completed, retried, dead } = stats.totals;
    points.push({ t: now, submitted, completed, retried, dead });
    if (points.length > HISTORY_POINTS) points.splice(0, points.length - HISTORY_POINTS);
  }
}
