'use strict';
// The contract's floor: what a job's whole life costs the server when the scripts do only what the
// contract's keyspace makes every job do, and nothing else — no argument checks, no dedup or resend
// check, no lane index, no counters, no wake list, no server clock but one TIME per claim. Batched as
// the library batches (submits of 500, claims and completes of 25). instructions.js counts it beside
// the real scripts, so the distance between the two is the cost of everything the package adds.
//
// Per job: submit `HSET` of the row's five contract fields and `ZADD` into the lane (`ZCARD`, and
// `RPUSH` onto the ring when the lane was empty); claim `LMOVE` of the ring, `ZPOPMIN`, `HMGET` and
// `HSET` of the row (state, attempts: the fencing token), `HINCRBY` of `gactive`, `ZCARD` (and `RPOP`
// when the lane is empty), the lease in one `ZADD` per call; complete `HMGET`, `HINCRBY` of `gactive`
// (`HDEL` at zero), the leases in one `ZREM` and the rows in one `DEL` per call.

const SUBMIT = `
local n = tonumber(ARGV[1])
for i = 0, n - 1 do
  local id, group, payload = ARGV[2 + i * 3], ARGV[3 + i * 3], ARGV[4 + i * 3]
  redis.call('HSET', KEYS[2] .. 'job:' .. id, 'state', 'pending', 'attempts', '0', 'payload', payload,
    'group', group, 'last_error', '')
  local lane = KEYS[2] .. 'g:' .. group .. ':pending'
  redis.call('ZADD', lane, 0, id)
  if redis.call('ZCARD', lane) == 1 then redis.call('RPUSH', KEYS[1], group) end
end
return n`;

const CLAIM = `
local out, leases = {}, {}
local t = redis.call('TIME')
local lease = tostring(t[1] * 1000 + 30000)
for i = 1, tonumber(ARGV[1]) do
  local group = redis.call('LMOVE', KEYS[1], KEYS[1], 'LEFT', 'RIGHT')
  if not group then break end
  local lane = KEYS[4] .. 'g:' .. group .. ':pending'
  local id = redis.call('ZPOPMIN', lane)[1]
  local key = KEYS[4] .. 'job:' .. id
  local row = redis.call('HMGET', key, 'payload', 'attempts')
  redis.call('HSET', key, 'state', 'active', 'attempts', tostring(tonumber(row[2]) + 1))
  redis.call('HINCRBY', KEYS[2], group, 1)
  if redis.call('ZCARD', lane) == 0 then redis.call('RPOP', KEYS[1]) end
  leases[#leases + 1] = lease
  leases[#leases + 1] = id
  out[#out + 1] = id
  out[#out + 1] = group
  out[#out + 1] = row[1]
end
if #leases > 0 then redis.call('ZADD', KEYS[3], unpack(leases)) end
return out`;

const COMPLETE = `
local rows = {}
for i = 1, #ARGV do
  local key = KEYS[4] .. 'job:' .. ARGV[i]
  local group = redis.call('HMGET', key, 'state', 'group')[2]
  if redis.call('HINCRBY', KEYS[2], group, -1) <= 0 then redis.call('HDEL', KEYS[2], group) end
  rows[i] = key
end
redis.call('ZREM', KEYS[3], unpack(ARGV))
redis.call('DEL', unpack(rows))
return #ARGV`;

/**
 * Runs the floor's three phases of `n` jobs over 1,000 lanes on `client` (a queue of its own),
 * each inside `phase(label, jobs, fn)`, and leaves nothing behind.
 */
async function contractFloor(client, phase, n, payload) {
  const base = 'emq:{floor}:';
  const keys = [base + 'ring', base + 'gactive', base + 'active', base];
  client.defineCommand('floorSubmit', { numberOfKeys: 2, lua: SUBMIT });
  client.defineCommand('floorClaim', { numberOfKeys: 4, lua: CLAIM });
  client.defineCommand('floorComplete', { numberOfKeys: 4, lua: COMPLETE });
  let seq = 0;
  const fill = async (count) => {
    for (let i = 0; i < count; i += 500) {
      const args = [];
      for (let j = 0; j < 500 && i + j < count; j++, seq++) {
        const lane = `lane-${seq % 1000}`;
        args.push(`JOB${String(seq).padStart(11, '0')}`, lane, JSON.stringify(payload(seq, lane)));
      }
      await client.floorSubmit(keys[0], base, args.length / 3, ...args);
    }
  };
  // Load the three scripts outside the counts.
  await fill(10);
  const warm = await client.floorClaim(...keys, 10);
  await client.floorComplete(...keys, ...warm.filter((_, i) => i % 3 === 0));

  await phase('Contract floor: submit, 500 per script', n, () => fill(n));
  await fill(n);
  const held = [];
  await phase('Contract floor: claim, 25 per script', n, async () => {
    while (held.length < n) {
      const replies = await Promise.all([client.floorClaim(...keys, 25), client.floorClaim(...keys, 25)]);
      for (const r of replies) for (let i = 0; i < r.length; i += 3) held.push(r[i]);
    }
  });
  await phase('Contract floor: complete, 25 per script', n, async () => {
    for (let i = 0; i < held.length; i += 25) await client.floorComplete(...keys, ...held.slice(i, i + 25));
  });
  // One job per script, 50 scripts in flight, as the package's one-job phases run: what a call costs
  // before any job in it (these two are not part of the floor's whole life).
  await fill(2000);
  const one = [];
  await phase('Contract floor: claim, one per script', 2000, async () => {
    for (let i = 0; i < 2000; i += 50) {
      for (const r of await Promise.all(Array.from({ length: 50 }, () => client.floorClaim(...keys, 1)))) one.push(r[0]);
    }
  });
  await phase('Contract floor: complete, one per script', 2000, async () => {
    for (let i = 0; i < one.length; i += 50) await Promise.all(one.slice(i, i + 50).map((id) => client.floorComplete(...keys, id)));
  });
  const left = await client.keys(`${base}*`);
  if (left.length) await client.del(...left);
}

module.exports = { contractFloor };
