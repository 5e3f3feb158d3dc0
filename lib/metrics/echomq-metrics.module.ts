import { DynamicModule, Module } from '@nestjs/common';
import { EchoMqError } from '../errors';
import { invalidArgument } from '../echomq.messages';
import { checkName } from '../validation/validate';
import { EchoMqMetricsCollector } from './echomq-metrics.collector';
import { ECHOMQ_METRICS_OPTIONS, EchoMqMetricsOptions } from './echomq-metrics.options';

/**
 * Prometheus metrics of EchoMQ queues (prom-client, an optional peer dependency loaded only by the
 * `@echomq/nestjs/metrics` entry). Import it next to `EchoMqModule`; the metrics land in prom-client's
 * global registry unless `registry` says otherwise, so `@willsoto/nestjs-prometheus` serves them.
 */
@Module({})
export class EchoMqMetricsModule {
  /**
   * Registers the metrics.
   * @param options registry, queues and how many top lanes and top tenants to report
   */
  static forRoot(options: EchoMqMetricsOptions = {}): DynamicModule {
    for (const name of ['topLanes', 'topTenants'] as const) {
      const top = options[name];
      if (top !== undefined && (!Number.isSafeInteger(top) || top < 0 || top > 1_000)) {
        throw new EchoMqError(invalidArgument(name, 'must be an integer from 0 to 1,000', top), { argument: name });
      }
    }
    if (options.queues !== undefined) {
      if (!Array.isArray(options.queues)) {
        throw new EchoMqError(invalidArgument('queues', 'must be an array of queue names', options.queues), { argument: 'queues' });
      }
      options.queues.forEach((queue, i) => checkName(`queues[${i}]`, queue));
    }
    return {
      module: EchoMqMetricsModule,
      providers: [{ provide: ECHOMQ_METRICS_OPTIONS, useValue: options }, EchoMqMetricsCollector],
    };
  }
}
