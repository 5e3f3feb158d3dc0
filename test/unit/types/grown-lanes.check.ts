// Compiled by test/unit/lane-queue-types.spec.ts: a LanesService that gained a queue method the handle's
// list lacks must fail the check (were it to pass, the @ts-expect-error below would be the error).
import { LanesService } from '../../../lib/lanes.service';
import type { EveryQueueMethodBound } from './lane-queue.check';

class GrownLanesService extends LanesService {
  async rewind(queue: string, jobId: string): Promise<boolean> {
    return queue.length > 0 && jobId.length > 0;
  }
}

// @ts-expect-error "rewind" is a queue method no list names
export const bound: EveryQueueMethodBound<GrownLanesService> = true;
