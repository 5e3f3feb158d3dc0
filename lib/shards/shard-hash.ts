/**
 * @internal Which shard of a sharded queue holds a lane: jump consistent hashing (Lamping and
 * Veach, 2014) of a 64-bit FNV-1a hash of the lane's name (its group, or its tenant when it has
 * one). Going from n to n + 1 shards moves about 1/(n + 1) of the names, all into the new shard.
 * Every process must compute the same shard for a name, so neither function may ever change:
 * test/unit/shard-hash.spec.ts pins vectors of both.
 */

const MASK64 = (1n << 64n) - 1n;
const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const JUMP_MULTIPLIER = 2862933555777941757n;

/** FNV-1a over the name's UTF-8 bytes, 64 bits. */
export function fnv1a64(name: string): bigint {
  let h = FNV_OFFSET;
  for (const byte of Buffer.from(name, 'utf8')) {
    h ^= BigInt(byte);
    h = (h * FNV_PRIME) & MASK64;
  }
  return h;
}

/** Jump consistent hash: a bucket in [0, buckets) for a 64-bit key. */
export function jumpHash(key: bigint, buckets: number): number {
  let b = -1;
  let j = 0;
  let k = key;
  while (j < buckets) {
    b = j;
    k = (k * JUMP_MULTIPLIER + 1n) & MASK64;
    j = Math.floor((b + 1) * (2 ** 31 / Number((k >> 33n) + 1n)));
  }
  return b;
}

/** The shard of a name on a queue of `shards` shards (0 on an unsharded queue, without hashing). */
export function shardOf(name: string, shards: number): number {
  return shards <= 1 ? 0 : jumpHash(fnv1a64(name), shards);
}
