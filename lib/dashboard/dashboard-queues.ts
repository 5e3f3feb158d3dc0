import { Inject, Injectable, NotFoundException, OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { laneConsumerQueueOf } from '../index';
import { ECHOMQ_DASHBOARD_OPTIONS } from './dashboard.constants';
import type { ResolvedDashboardOptions } from './dashboard-options.interface';
import { unknownQueue } from './dashboard.messages';

/** @internal The queues the dashboard shows: the configured ones, else those of the app's consumers. */
@Injectable()
export class DashboardQueues implements OnModuleInit {
  private list: readonly string[] = [];

  constructor(
    @Inject(ECHOMQ_DASHBOARD_OPTIONS) private readonly options: ResolvedDashboardOptions,
    private readonly discovery: DiscoveryService,
  ) {}

  onModuleInit(): void {
    if (this.options.queues) {
      this.list = Object.freeze([...new Set(this.options.queues)]);
      return;
    }
    const found = new Set<string>();
    for (const wrapper of this.discovery.getProviders()) {
      const type = (wrapper.instance?.constructor ?? wrapper.metatype) as Function | undefined;
      const queue = typeof type === 'function' ? laneConsumerQueueOf(type) : undefined;
      if (queue !== undefined) found.add(queue);
    }
    this.list = Object.freeze([...found].sort());
  }

  /** Every queue shown, in order. */
  all(): readonly string[] {
    return this.list;
  }

  /** `queue` if the dashboard shows it; a 404 otherwise (the API reads no other queue). */
  check(queue: unknown): string {
    if (typeof queue !== 'string' || !this.list.includes(queue)) throw new NotFoundException(unknownQueue(queue));
    return queue;
  }
}
