import type { FairnessBy } from '../interfaces';
import type { LaneKeys } from '../redis/lane-keys';
import type { LaneScripts } from './lane-scripts';

/** @internal Entries one call of lua/fairness-3.lua moves between a ring's two orders, at most. */
const MOVE_BUDGET = 500;

/** @internal The typed call of lua/fairness-3.lua, on LaneScripts' connection. */
export class FairnessScripts {
  constructor(private readonly scripts: LaneScripts) {}

  /**
   * Stores `by` and moves every ring to the order it uses, a bounded page per call (each call one
   * script of at most MOVE_BUDGET entries), until the script says every ring is moved.
   */
  async set(k: LaneKeys, by: FairnessBy): Promise<void> {
    let cursor = (await this.scripts.run('fairness', k.queue, 'fairness', [k.meta, k.ring, k.tenants], [k.base, by, 'q', MOVE_BUDGET])) as string;
    while (cursor !== '') {
      cursor = (await this.scripts.run('fairness', k.queue, 'fairness', [k.meta, k.ring, k.tenants], [k.base, '', cursor, MOVE_BUDGET])) as string;
    }
  }
}
