/**
 * @internal The `n` first of a sharded read's answers, each shard's own top `n` (so the queue's top
 * `n` is among them): by `score`, highest first, ties by `name` so the order is stable.
 */
export function mergeTop<T>(parts: T[][], n: number, score: (x: T) => number, name: (x: T) => string): T[] {
  if (parts.length === 1) return parts[0];
  return parts.flat().sort(topOrder(score, name)).slice(0, n);
}

/** @internal The order of every top-n read: by `score`, highest first, ties by `name`. */
export function topOrder<T>(score: (x: T) => number, name: (x: T) => string): (a: T, b: T) => number {
  return (a, b) => score(b) - score(a) || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0);
}
