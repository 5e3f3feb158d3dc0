import { DynamicModule, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { EchoMqError } from '../index';
import { DashboardActionGuard } from './dashboard-action.guard';
import { DashboardAssets } from './dashboard-assets';
import { DashboardFeed } from './dashboard-feed';
import { DashboardLaneSearch } from './dashboard-lane-search';
import type { EchoMqDashboardOptions, ResolvedDashboardOptions } from './dashboard-options.interface';
import { DashboardQueues } from './dashboard-queues';
import { ECHOMQ_DASHBOARD_OPTIONS } from './dashboard.constants';
import { createDashboardController } from './dashboard.controller';
import { invalidGuard, invalidPath, invalidQueues, writableWithoutGuard } from './dashboard.messages';
import { QueueSnapshotReader } from './queue-snapshot.reader';

/**
 * @internal Checks the options and applies the defaults; a mistake fails the boot with an
 * {@link EchoMqError} (`MISCONFIGURED`, `argument` the option) saying what to change.
 */
export function resolveDashboardOptions(options: EchoMqDashboardOptions = {}): ResolvedDashboardOptions {
  const refuse = (message: string, argument: string) => new EchoMqError(message, { code: 'MISCONFIGURED', argument });
  const path = options.path ?? '/echomq';
  if (typeof path !== 'string' || !/^\/?[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*\/?$/.test(path)) throw refuse(invalidPath(path), 'path');
  const readOnly = options.readOnly ?? true;
  const guard = options.guard ?? null;
  if (guard !== null && typeof guard !== 'function') throw refuse(invalidGuard(guard), 'guard');
  if (readOnly === false && guard === null) throw refuse(writableWithoutGuard(), 'guard');
  const queues = options.queues ?? null;
  if (queues !== null && (!Array.isArray(queues) || queues.some((q) => typeof q !== 'string' || q === ''))) throw refuse(invalidQueues(queues), 'queues');
  return { path: '/' + path.replace(/^\/|\/$/g, ''), queues, readOnly: readOnly !== false, guard };
}

/**
 * A live web page for the people running the queues, served by the app itself at `path`
 * (default `/echomq`): totals and rates, jobs by state, the ring, the lanes by backlog, a search by
 * lane name and the dead letters, updated live. Read-only unless `readOnly: false`, which needs a
 * `guard`. Import it beside `EchoMqModule` (it uses its `LanesService`).
 */
@Module({})
export class EchoMqDashboardModule {
  /**
   * Mounts the page; throws an `EchoMqError` (`MISCONFIGURED`) for `readOnly: false` without a
   * `guard`, and for a bad `path`, `guard` or `queues`.
   */
  static forRoot(options: EchoMqDashboardOptions = {}): DynamicModule {
    const resolved = resolveDashboardOptions(options);
    return {
      module: EchoMqDashboardModule,
      imports: [DiscoveryModule],
      controllers: [createDashboardController(resolved.path, resolved.guard)],
      providers: [
        { provide: ECHOMQ_DASHBOARD_OPTIONS, useValue: resolved },
        { provide: DashboardAssets, useFactory: () => new DashboardAssets() },
        DashboardQueues,
        QueueSnapshotReader,
        DashboardFeed,
        DashboardLaneSearch,
        DashboardActionGuard,
      ],
    };
  }
}
