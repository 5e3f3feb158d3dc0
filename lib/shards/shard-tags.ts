import { keySlot } from './key-slot';

/** @internal A range of hash slots and the master that serves it (from CLUSTER SLOTS). */
export interface SlotRange {
  from: number;
  to: number;
  master: string;
}

/** @internal The tag of shard `i` when none is stored: the queue's name for shard 0, `q{i` for the others. */
export const plainTag = (queue: string, i: number): string => (i === 0 ? queue : `${queue}{${i}`);

/** Tries per shard before a master is given up on (each is a CRC16 of a short name). */
const MAX_SALT = 100_000;

/**
 * @internal Tags for the `n` shards of `queue` that spread them over the masters of `layout` as
 * evenly as counts allow: shard 0 keeps the queue's own tag (so its master is fixed), and shard i
 * goes to the master `i` places after it in a round over the masters, under `q{i` when that lands
 * there, else `q{i.s}` with the smallest salt s that does. Plain tags hash to slots by chance, so
 * six shards over three masters could land 4/1/1 (the bench's `shards` scenario saw it); these
 * land 2/2/2. Stored with the shard count, so every process uses the same keys whatever the
 * layout later becomes (an operator may still move a shard's slot to another master).
 */
export function spreadTags(queue: string, n: number, layout: SlotRange[]): string[] {
  const masters = [...new Set(layout.map((r) => r.master))].sort();
  const masterOf = (slot: number): string | undefined => layout.find((r) => slot >= r.from && slot <= r.to)?.master;
  const tags = [queue];
  const first = masterOf(keySlot(`{${queue}}`));
  if (first === undefined || masters.length < 2) return Array.from({ length: n }, (_, i) => plainTag(queue, i));
  const start = masters.indexOf(first);
  for (let i = 1; i < n; i++) {
    const target = masters[(start + i) % masters.length];
    let tag = plainTag(queue, i);
    for (let s = 1; masterOf(keySlot(`{${tag}}`)) !== target && s <= MAX_SALT; s++) tag = `${queue}{${i}.${s}`;
    tags.push(tag);
  }
  return tags;
}

/** @internal Whether a value read from the shard map is a list of `n` tags for `queue` (else the plain tags are used). */
export function isTagList(value: unknown, queue: string, n: number): value is string[] {
  return Array.isArray(value) && value.length === n && value[0] === queue
    && value.every((t, i) => typeof t === 'string' && (i === 0 || t === plainTag(queue, i) || t.startsWith(`${queue}{${i}.`)) && !t.includes('}'));
}
