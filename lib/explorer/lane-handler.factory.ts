import type { ExternalContextCreator } from '@nestjs/core/helpers/external-context-creator';
import { ECHOMQ_CONTEXT_TYPE } from '../echomq.constants';
import type { LaneJob } from '../interfaces';

/**
 * @internal A consumer's `handle`, wrapped by Nest's external context creator as a microservice
 * handler is: the interceptors of the class, of the method and the global ones run around every
 * job, with an ExecutionContext of type 'echomq' whose argument 0 is the LaneJob. What the
 * interceptors' observable yields is the result; what they throw fails the job.
 * NOTE: guards and exception filters are left out on purpose: a job has no caller to refuse or to
 * answer, and a global HTTP guard or filter (APP_GUARD, APP_FILTER) would otherwise fail every job.
 */
export function createLaneHandler(
  contexts: ExternalContextCreator, instance: object, handle: (job: LaneJob) => unknown,
): (job: LaneJob) => Promise<unknown> {
  return contexts.create(
    instance as Record<string, unknown>, handle as (...args: unknown[]) => unknown, 'handle',
    undefined, undefined, undefined, undefined,
    { interceptors: true, guards: false, filters: false },
    ECHOMQ_CONTEXT_TYPE,
  ) as (job: LaneJob) => Promise<unknown>;
}
