import { Injectable } from '@nestjs/common';
import { SEARCH_SCAN_LANES, SNAPSHOT_POSITIONS } from './dashboard.constants';
import { LaneRow, QueueSnapshotReader } from './queue-snapshot.reader';

/** @internal What a search by lane name finds. */
export interface LaneSearchResult {
  /** The lane of exactly that name, when it has work or settings. */
  exact: LaneRow | null;
  /** Lanes whose name contains the text (case-insensitive), from the part of the queue looked through. */
  matches: LaneRow[];
  /** Where to go on looking (pass it back), `null` when the whole queue was looked through. */
  cursor: string | null;
  /** Lanes looked through by this request. */
  scanned: number;
}

const MAX_MATCHES = 100;
const SCAN_PAGE = 1_000;

/**
 * @internal Search by lane name on a queue of any size: the exact name is one lookup; names that
 * contain the text are looked for a bounded number of lanes at a time (`scanLanes` pages), and the
 * caller goes on with the returned cursor.
 */
@Injectable()
export class DashboardLaneSearch {
  constructor(private readonly reader: QueueSnapshotReader) {}

  async search(queue: string, text: string, cursor?: string): Promise<LaneSearchResult> {
    const reads = this.reader.reads;
    let exact: LaneRow | null = null;
    if (cursor === undefined) {
      const lane = await reads.lane(queue, text);
      if (lane.pending > 0 || lane.active > 0 || lane.paused || lane.limit !== null || lane.weight !== 1 || lane.inRing) {
        exact = (await this.reader.withHeads(queue, [lane], 1))[0];
      }
    }
    const needle = text.toLowerCase();
    const found: LaneRow[] = [];
    let next: string | null | undefined = cursor;
    let scanned = 0;
    do {
      const page = await reads.scanLanes(queue, next, SCAN_PAGE);
      scanned += page.lanes.length;
      for (const lane of page.lanes) {
        if (lane.group !== text && lane.group.toLowerCase().includes(needle)) found.push(lane);
      }
      next = page.cursor;
    } while (next !== null && scanned < SEARCH_SCAN_LANES && found.length < MAX_MATCHES);
    const matches = await this.reader.withHeads(queue, found.slice(0, MAX_MATCHES), SNAPSHOT_POSITIONS);
    return { exact, matches, cursor: next, scanned };
  }
}
