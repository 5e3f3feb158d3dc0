/**
 * Every command EchoMQ sends, directly or from its Lua scripts (Redis checks a script's calls
 * against the user's ACL too): the narrowest command set its ACL user needs (the ACL tests pass
 * with exactly these). `info` serves ioredis's ready check (without it ioredis warns on every
 * connect and skips the check); `ping` serves the health indicator of `@echomq/nestjs/health`. Left out on purpose: `config|get` (the library copes when it is
 * refused) and `client|setname` (ioredis ignores the refusal; add it to see the connections'
 * names in CLIENT LIST).
 */
export const ECHOMQ_ACL_COMMANDS: readonly string[] = [
  // sent by the library (subscribe/unsubscribe: waitFor's subscriber; zscan, zrevrange: the lane index;
  // lrange: ring(), the head of the ring read directly, as the dashboard shows it; peek() sends zrange;
  // ping: the health indicator)
  'evalsha', 'eval', 'brpop', 'hgetall', 'info', 'ping', 'subscribe', 'unsubscribe', 'zscan', 'zrevrange',
  // called inside the scripts
  'time', 'exists', 'del', 'pexpire', 'pttl', 'publish', 'incrby', 'mget',
  // get, set: a lane's tenant (emq:{q}:g:<group>:tenant)
  'get', 'set',
  'hget', 'hmget', 'hset', 'hsetnx', 'hdel', 'hincrby', 'hkeys', 'hlen', 'hexists',
  'llen', 'lindex', 'lpos', 'lrange', 'lpush', 'lpop', 'rpush', 'rpop', 'lmove', 'lrem', 'ltrim',
  'sadd', 'srem', 'sismember', 'smembers', 'scard',
  // smismember: submitMany asks a tenant's set of lanes about the lanes its later chunks name
  'smismember',
  // sscan, hscan: adoptLanes pages through a queue written before 0.2 at boot
  'sscan', 'hscan',
  // scan: clean('completed') and obliterate find the keys no index names; unlink: obliterate's pages
  'scan', 'unlink',
  'zadd', 'zrem', 'zcard', 'zscore', 'zpopmin', 'zrange', 'zrangebyscore', 'zincrby', 'zrank',
  // zrevrangebyscore: topLanes (the lane index below its head entries); zcount, zmscore: stats and shares
  'zrevrangebyscore', 'zcount', 'zmscore',
  // cluster|slots: shards() on a Cluster reads which master serves which slots, to spread the shards
  'cluster|slots',
];

/**
 * The ACL rules an EchoMQ user needs under `prefix`: its keys, its pub/sub channels (waitFor's
 * `${prefix}:{q}:done`) and the commands above, nothing else. Paste after
 * `ACL SETUSER <name> on ><password> `.
 */
export function echoMqAclRules(prefix = 'emq'): string {
  return `resetkeys ~${prefix}:* resetchannels &${prefix}:* -@all ${ECHOMQ_ACL_COMMANDS.map((c) => `+${c}`).join(' ')}`;
}

/**
 * What the function library needs besides (Redis 7+, Valkey): without these rights, and on a
 * server without FUNCTION, the scripts run by EVALSHA as before. Not in {@link echoMqAclRules}:
 * Redis 6.2 refuses an ACL line that names them.
 */
export const ECHOMQ_FUNCTION_ACL_RULES = '+fcall +fcall_ro +function|load';
