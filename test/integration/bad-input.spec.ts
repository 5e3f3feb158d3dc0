import IORedis from 'ioredis';
import { engineFixture, snapshotAll } from '../support/engine';
import { lanesOn } from '../support/lanes';
import { EchoMqError } from '../../lib/errors';
import type { LanesService } from '../../lib/lanes.service';

/** What a case can use: a seeded queue with a held job and a dead one. */
interface Ctx {
  lanes: LanesService;
  q: string;
  heldId: string;
  token: number;
  deadId: string;
}

const circular: Record<string, unknown> = { a: 1 };
circular.self = circular;

const BAD_NAMES: unknown[] = [
  '', 'x'.repeat(201), 'é'.repeat(101), '{', '}', 'a{b', 'a}b', '{a}', 'tab\there', 'line\n', 'nul\u0000', 'esc\u001b',
  'del\u007f', 'nel\u0085', 'csi\u009b', 'lone\uD800', '\uDC00', 5, 0, NaN, {}, [], ['a'], null, undefined, true, Symbol('s'), 10n,
];
/** Not a number, or not a safe integer: bad for every integer argument. */
const NOT_INTS: unknown[] = [NaN, Infinity, -Infinity, 1.5, 0.1, '1', '', {}, [], true, 2 ** 53, 1e300, 10n];
const BAD_POSITIVE: unknown[] = [...NOT_INTS, 0, -1, -0.5, null];
const BAD_REQUIRED_POSITIVE: unknown[] = [...BAD_POSITIVE, undefined];
const BAD_NON_NEGATIVE: unknown[] = [...NOT_INTS, -1, -Infinity, null];
const BAD_JOB_IDS: unknown[] = [
  '', 'JOB', 'JOB123', 'job00000000000', 'JOB0000000000-', 'JOB000000000000', ' JOB00000000000', 'JOB00000000000\n',
  'JOB0000000000é', 'XYZ00000000000', 5, null, undefined, {}, ['JOB00000000000'], 10n,
];
const BAD_TOKENS: unknown[] = [0, -1, 1.5, NaN, Infinity, -Infinity, '1', null, undefined, {}, [], true, 2 ** 53];
const BAD_OPTS: unknown[] = [5, 'x', true, [], [1], 10n];
const BAD_DEDUP: unknown[] = ['', 5, null, {}, [], 'x'.repeat(1025)];
const BAD_PAYLOADS: unknown[] = [circular, 10n, { big: 10n }, 'x'.repeat(100), { s: 'y'.repeat(80) }, undefined, () => 1, Symbol('p')];
const BAD_ITEMS: unknown[] = [5, 'x', null, undefined, {}, { 0: { group: 'a', payload: 1 }, length: 1 }];
const BAD_ITEM: unknown[] = [5, 'x', null, undefined, true];
/** `undefined` is "no result", so it is not among them. */
const BAD_RESULTS: unknown[] = BAD_PAYLOADS.filter((v) => v !== undefined);
const BAD_CURSORS: unknown[] = ['', '0', '00', '-1', '1.5', 'abc', ' 12', '12 ', '18446744073709551616', '1'.repeat(21), 12, null, {}, [], 10n];

/** A tenant named with a bad name (left out, no tenant is named: not bad). */
const NAMED_BAD: unknown[] = BAD_NAMES.filter((v) => v !== undefined);

type Call = (c: Ctx, v: unknown) => Promise<unknown>;
type Case = [method: string, argument: string, values: unknown[], call: Call];

const ok = { group: 'a', payload: { ok: true } };
const L = (c: Ctx): any => c.lanes;

const CASES: Case[] = [
  ['submit', 'queue', BAD_NAMES, (c, v) => L(c).submit(v, 'a', {})],
  ['submit', 'group', BAD_NAMES, (c, v) => L(c).submit(c.q, v, {})],
  ['submit', 'payload', BAD_PAYLOADS, (c, v) => L(c).submit(c.q, 'a', v)],
  ['submit', 'opts', BAD_OPTS, (c, v) => L(c).submit(c.q, 'a', {}, v)],
  ['submit', 'opts.jobId', BAD_JOB_IDS.filter((v) => v !== undefined), (c, v) => L(c).submit(c.q, 'a', {}, { jobId: v })],
  ['submit', 'opts.dedupKey', BAD_DEDUP, (c, v) => L(c).submit(c.q, 'a', {}, { dedupKey: v })],
  ['submit', 'opts.delayMs', BAD_NON_NEGATIVE, (c, v) => L(c).submit(c.q, 'a', {}, { delayMs: v })],
  ['submit', 'opts.maxAttempts', BAD_POSITIVE, (c, v) => L(c).submit(c.q, 'a', {}, { maxAttempts: v })],

  ['submitMany', 'queue', BAD_NAMES, (c, v) => L(c).submitMany(v, [ok])],
  ['submitMany', 'items', BAD_ITEMS, (c, v) => L(c).submitMany(c.q, v)],
  ['submitMany', 'items[1]', BAD_ITEM, (c, v) => L(c).submitMany(c.q, [ok, v])],
  ['submitMany', 'items[1].group', BAD_NAMES, (c, v) => L(c).submitMany(c.q, [ok, { group: v, payload: 1 }])],
  ['submitMany', 'items[1].payload', BAD_PAYLOADS, (c, v) => L(c).submitMany(c.q, [ok, { group: 'a', payload: v }])],
  ['submitMany', 'items[1].opts', BAD_OPTS, (c, v) => L(c).submitMany(c.q, [ok, { ...ok, opts: v }])],
  ['submitMany', 'items[1].opts.jobId', BAD_JOB_IDS.filter((v) => v !== undefined), (c, v) => L(c).submitMany(c.q, [ok, { ...ok, opts: { jobId: v } }])],
  ['submitMany', 'items[1].opts.dedupKey', BAD_DEDUP, (c, v) => L(c).submitMany(c.q, [ok, { ...ok, opts: { dedupKey: v } }])],
  ['submitMany', 'items[1].opts.delayMs', BAD_NON_NEGATIVE, (c, v) => L(c).submitMany(c.q, [ok, { ...ok, opts: { delayMs: v } }])],
  ['submitMany', 'items[1].opts.maxAttempts', BAD_POSITIVE, (c, v) => L(c).submitMany(c.q, [ok, { ...ok, opts: { maxAttempts: v } }])],

  ['claim', 'queue', BAD_NAMES, (c, v) => L(c).claim(v)],
  ['claim', 'opts', BAD_OPTS, (c, v) => L(c).claim(c.q, v)],
  ['claim', 'opts.leaseMs', BAD_POSITIVE, (c, v) => L(c).claim(c.q, { leaseMs: v })],

  ['claimMany', 'queue', BAD_NAMES, (c, v) => L(c).claimMany(v, 1)],
  ['claimMany', 'count', BAD_REQUIRED_POSITIVE, (c, v) => L(c).claimMany(c.q, v)],
  ['claimMany', 'opts', BAD_OPTS, (c, v) => L(c).claimMany(c.q, 1, v)],
  ['claimMany', 'opts.leaseMs', BAD_POSITIVE, (c, v) => L(c).claimMany(c.q, 1, { leaseMs: v })],

  ['wclaim', 'queue', BAD_NAMES, (c, v) => L(c).wclaim(v)],
  ['wclaim', 'opts', BAD_OPTS, (c, v) => L(c).wclaim(c.q, v)],
  ['wclaim', 'opts.leaseMs', BAD_POSITIVE, (c, v) => L(c).wclaim(c.q, { leaseMs: v })],
  ['wclaim', 'opts.max', BAD_POSITIVE, (c, v) => L(c).wclaim(c.q, { max: v })],

  ['wclaimMany', 'queue', BAD_NAMES, (c, v) => L(c).wclaimMany(v, 1)],
  ['wclaimMany', 'turns', [...BAD_REQUIRED_POSITIVE, 1_001], (c, v) => L(c).wclaimMany(c.q, v)],
  ['wclaimMany', 'opts', BAD_OPTS, (c, v) => L(c).wclaimMany(c.q, 1, v)],
  ['wclaimMany', 'opts.leaseMs', BAD_POSITIVE, (c, v) => L(c).wclaimMany(c.q, 1, { leaseMs: v })],
  ['wclaimMany', 'opts.max', [...BAD_POSITIVE, 1_001], (c, v) => L(c).wclaimMany(c.q, 1, { max: v })],
  ['wclaimMany', 'opts.untilJobs', [...BAD_POSITIVE, 1_001], (c, v) => L(c).wclaimMany(c.q, 1, { untilJobs: v })],

  ['complete', 'queue', BAD_NAMES, (c, v) => L(c).complete(v, c.heldId, c.token)],
  ['complete', 'jobId', BAD_JOB_IDS, (c, v) => L(c).complete(c.q, v, c.token)],
  ['complete', 'token', BAD_TOKENS, (c, v) => L(c).complete(c.q, c.heldId, v)],

  ['fail', 'queue', BAD_NAMES, (c, v) => L(c).fail(v, c.heldId, c.token, 'e')],
  ['fail', 'jobId', BAD_JOB_IDS, (c, v) => L(c).fail(c.q, v, c.token, 'e')],
  ['fail', 'token', BAD_TOKENS, (c, v) => L(c).fail(c.q, c.heldId, v, 'e')],
  ['fail', 'opts', BAD_OPTS, (c, v) => L(c).fail(c.q, c.heldId, c.token, 'e', v)],
  ['fail', 'opts.maxAttempts', BAD_POSITIVE, (c, v) => L(c).fail(c.q, c.heldId, c.token, 'e', { maxAttempts: v })],

  ['extend', 'queue', BAD_NAMES, (c, v) => L(c).extend(v, c.heldId, c.token, 1_000)],
  ['extend', 'jobId', BAD_JOB_IDS, (c, v) => L(c).extend(c.q, v, c.token, 1_000)],
  ['extend', 'token', BAD_TOKENS, (c, v) => L(c).extend(c.q, c.heldId, v, 1_000)],
  ['extend', 'leaseMs', BAD_REQUIRED_POSITIVE, (c, v) => L(c).extend(c.q, c.heldId, c.token, v)],

  ['extendMany', 'queue', BAD_NAMES, (c, v) => L(c).extendMany(v, [{ jobId: c.heldId, token: c.token }], 1_000)],
  ['extendMany', 'leases', BAD_ITEMS, (c, v) => L(c).extendMany(c.q, v, 1_000)],
  ['extendMany', 'leases[1]', BAD_ITEM, (c, v) => L(c).extendMany(c.q, [{ jobId: c.heldId, token: c.token }, v], 1_000)],
  ['extendMany', 'leases[1].jobId', BAD_JOB_IDS, (c, v) => L(c).extendMany(c.q, [{ jobId: c.heldId, token: c.token }, { jobId: v, token: 1 }], 1_000)],
  ['extendMany', 'leases[1].token', BAD_TOKENS, (c, v) => L(c).extendMany(c.q, [{ jobId: c.heldId, token: c.token }, { jobId: c.heldId, token: v }], 1_000)],
  ['extendMany', 'leaseMs', BAD_REQUIRED_POSITIVE, (c, v) => L(c).extendMany(c.q, [{ jobId: c.heldId, token: c.token }], v)],

  ['release', 'queue', BAD_NAMES, (c, v) => L(c).release(v, c.heldId, c.token)],
  ['release', 'jobId', BAD_JOB_IDS, (c, v) => L(c).release(c.q, v, c.token)],
  ['release', 'token', BAD_TOKENS, (c, v) => L(c).release(c.q, c.heldId, v)],

  ['reap', 'queue', BAD_NAMES, (c, v) => L(c).reap(v)],
  ['reap', 'opts', BAD_OPTS, (c, v) => L(c).reap(c.q, v)],
  ['reap', 'opts.maxAttempts', BAD_POSITIVE, (c, v) => L(c).reap(c.q, { maxAttempts: v })],
  // fail's options, which reap does not take (it refuses them rather than ignore them).
  ['reap', 'opts.dead', [true, false], (c, v) => L(c).reap(c.q, { dead: v } as never)],
  ['reap', 'opts.backoff', [{ type: 'fixed', delayMs: 5 }, 0], (c, v) => L(c).reap(c.q, { backoff: v } as never)],

  ['promote', 'queue', BAD_NAMES, (c, v) => L(c).promote(v)],

  ['weight', 'queue', BAD_NAMES, (c, v) => L(c).weight(v, 'a', 2)],
  ['weight', 'group', BAD_NAMES, (c, v) => L(c).weight(c.q, v, 2)],
  ['weight', 'weight', BAD_REQUIRED_POSITIVE, (c, v) => L(c).weight(c.q, 'a', v)],

  ['limit', 'queue', BAD_NAMES, (c, v) => L(c).limit(v, 'a', 2)],
  ['limit', 'group', BAD_NAMES, (c, v) => L(c).limit(c.q, v, 2)],
  ['limit', 'limit', BAD_REQUIRED_POSITIVE.filter((v) => v !== null), (c, v) => L(c).limit(c.q, 'a', v)],

  ['maxDepth', 'queue', BAD_NAMES, (c, v) => L(c).maxDepth(v, 'a', 2)],
  ['maxDepth', 'group', BAD_NAMES, (c, v) => L(c).maxDepth(c.q, v, 2)],
  ['maxDepth', 'n', [...BAD_REQUIRED_POSITIVE.filter((v) => v !== null), 10_000_001, 2e6 + 0.5], (c, v) => L(c).maxDepth(c.q, 'a', v)],

  ['pause', 'queue', BAD_NAMES, (c, v) => L(c).pause(v, 'a')],
  ['pause', 'group', BAD_NAMES, (c, v) => L(c).pause(c.q, v)],
  ['pause', 'opts', BAD_OPTS, (c, v) => L(c).pause(c.q, 'a', v)],
  ['pause', 'opts.forMs', [...BAD_POSITIVE, 10 * 365 * 24 * 3600 * 1000 + 1], (c, v) => L(c).pause(c.q, 'a', { forMs: v, reason: 'ok' })],
  ['pause', 'opts.reason', [5, null, {}, [], true, 'x'.repeat(201), 'é'.repeat(101)], (c, v) => L(c).pause(c.q, 'a', { forMs: 1_000, reason: v })],

  ['rate', 'queue', BAD_NAMES, (c, v) => L(c).rate(v, 'a', { max: 5, perMs: 1_000 })],
  ['rate', 'group', BAD_NAMES, (c, v) => L(c).rate(c.q, v, { max: 5, perMs: 1_000 })],
  ['rate', 'rate', [5, 'x', true, [], [5, 1_000], undefined, 10n], (c, v) => L(c).rate(c.q, 'a', v)],
  ['rate', 'rate.max', [...BAD_REQUIRED_POSITIVE, 1_000_001], (c, v) => L(c).rate(c.q, 'a', { max: v, perMs: 1_000 })],
  ['rate', 'rate.perMs', [...BAD_REQUIRED_POSITIVE, 86_400_001], (c, v) => L(c).rate(c.q, 'a', { max: 5, perMs: v })],
  ['resume', 'queue', BAD_NAMES, (c, v) => L(c).resume(v, 'paused')],
  ['resume', 'group', BAD_NAMES, (c, v) => L(c).resume(c.q, v)],

  ['lane', 'queue', BAD_NAMES, (c, v) => L(c).lane(v, 'a')],
  ['lane', 'group', BAD_NAMES, (c, v) => L(c).lane(c.q, v)],
  ['lanes', 'queue', BAD_NAMES, (c, v) => L(c).lanes(v)],

  ['dead', 'queue', BAD_NAMES, (c, v) => L(c).dead(v)],
  ['dead', 'opts', BAD_OPTS, (c, v) => L(c).dead(c.q, v)],
  ['dead', 'opts.offset', BAD_NON_NEGATIVE, (c, v) => L(c).dead(c.q, { offset: v })],
  ['dead', 'opts.count', BAD_POSITIVE, (c, v) => L(c).dead(c.q, { count: v })],

  ['retryDead', 'queue', BAD_NAMES, (c, v) => L(c).retryDead(v, c.deadId)],
  ['retryDead', 'jobId', BAD_JOB_IDS, (c, v) => L(c).retryDead(c.q, v)],

  ['fail', 'opts.dead', [1, 0, 'yes', null, {}, []], (c, v) => L(c).fail(c.q, c.heldId, c.token, 'e', { dead: v })],
  ['progress', 'queue', BAD_NAMES, (c, v) => L(c).progress(v, c.heldId, c.token, 1)],
  ['progress', 'jobId', BAD_JOB_IDS, (c, v) => L(c).progress(c.q, v, c.token, 1)],
  ['progress', 'token', BAD_TOKENS, (c, v) => L(c).progress(c.q, c.heldId, v, 1)],
  ['progress', 'value', [NaN, Infinity, -Infinity, 'half', '', [], [1], null, undefined, true, 10n, circular, { n: 10n },
    { big: 'x'.repeat(65_536) }, new Date(0), { toJSON: () => [1, 2] }, { toJSON: () => null }], (c, v) => L(c).progress(c.q, c.heldId, c.token, v)],
  ['cancel', 'queue', BAD_NAMES, (c, v) => L(c).cancel(v, c.deadId)],
  ['cancel', 'jobId', BAD_JOB_IDS, (c, v) => L(c).cancel(c.q, v)],
  ['drain', 'queue', BAD_NAMES, (c, v) => L(c).drain(v)],
  ['drain', 'opts', BAD_OPTS, (c, v) => L(c).drain(c.q, v)],
  ['drain', 'opts.group', BAD_NAMES.filter((v) => v !== undefined), (c, v) => L(c).drain(c.q, { group: v })],
  ['clean', 'queue', BAD_NAMES, (c, v) => L(c).clean(v, 'dead')],
  ['clean', 'kind', ['', 'Dead', 'pending', 'active', 5, null, undefined, {}, ['dead']], (c, v) => L(c).clean(c.q, v)],
  ['clean', 'opts', BAD_OPTS, (c, v) => L(c).clean(c.q, 'dead', v)],
  ['clean', 'opts.olderThanMs', [...BAD_NON_NEGATIVE, 315_360_000_001], (c, v) => L(c).clean(c.q, 'dead', { olderThanMs: v })],
  ['clean', 'opts.limit', BAD_POSITIVE, (c, v) => L(c).clean(c.q, 'completed', { limit: v })],
  ['obliterate', 'queue', BAD_NAMES, (c, v) => L(c).obliterate(v, { force: true })],
  ['obliterate', 'opts', BAD_OPTS, (c, v) => L(c).obliterate(c.q, v)],
  ['obliterate', 'opts.force', [1, 0, 'yes', null, {}, []], (c, v) => L(c).obliterate(c.q, { force: v })],
  ['stats', 'queue', BAD_NAMES, (c, v) => L(c).stats(v)],

  ['complete', 'result', BAD_RESULTS, (c, v) => L(c).complete(c.q, c.heldId, c.token, v)],
  ['completeMany', 'acks[0].result', BAD_RESULTS, (c, v) => L(c).completeMany(c.q, [{ jobId: c.heldId, token: c.token, result: v }])],
  ['completeMany', 'opts.keepCompletedMs', [...BAD_NON_NEGATIVE, 30 * 24 * 3600 * 1000 + 1],
    (c, v) => L(c).completeMany(c.q, [{ jobId: c.heldId, token: c.token }], { keepCompletedMs: v })],

  ['job', 'queue', BAD_NAMES, (c, v) => L(c).job(v, c.heldId)],
  ['job', 'jobId', BAD_JOB_IDS, (c, v) => L(c).job(c.q, v)],
  ['position', 'queue', BAD_NAMES, (c, v) => L(c).position(v, c.heldId)],
  ['position', 'jobId', BAD_JOB_IDS, (c, v) => L(c).position(c.q, v)],
  ['waitFor', 'queue', BAD_NAMES, (c, v) => L(c).waitFor(v, c.heldId, { timeoutMs: 100 })],
  ['waitFor', 'jobId', BAD_JOB_IDS, (c, v) => L(c).waitFor(c.q, v, { timeoutMs: 100 })],
  ['waitFor', 'opts', BAD_OPTS, (c, v) => L(c).waitFor(c.q, c.heldId, v)],
  ['waitFor', 'opts.timeoutMs', [...BAD_REQUIRED_POSITIVE, 24 * 3600 * 1000 + 1], (c, v) => L(c).waitFor(c.q, c.heldId, { timeoutMs: v })],

  ['scanLanes', 'queue', BAD_NAMES, (c, v) => L(c).scanLanes(v)],
  ['scanLanes', 'opts', BAD_OPTS, (c, v) => L(c).scanLanes(c.q, v)],
  ['scanLanes', 'opts.count', [...BAD_POSITIVE, 1_001], (c, v) => L(c).scanLanes(c.q, { count: v })],
  ['scanLanes', 'opts.cursor', BAD_CURSORS, (c, v) => L(c).scanLanes(c.q, { cursor: v })],
  // Tenants: names by the group rules, a lane that holds jobs under another tenant (or none), settings in range.
  ['submit', 'opts.tenant', [...NAMED_BAD, 'T', 'U'], (c, v) => L(c).submit(c.q, 'a', {}, { tenant: v })],
  ['submitMany', 'items[1].opts.tenant', [...NAMED_BAD, 'T'], (c, v) => L(c).submitMany(c.q, [ok, { group: 'a', payload: 1, opts: { tenant: v } }])],
  ['submitMany', 'items[1].opts.tenant', ['T', 'U'], (c, v) => L(c).submitMany(c.q, [{ group: 'n', payload: 1, opts: { tenant: 'V' } }, { group: 'n', payload: 2, opts: { tenant: v } }])],
  ['submitMany', 'items[600].opts.tenant', ['T'], (c, v) => L(c).submitMany(c.q, [
    ...Array.from({ length: 600 }, (_, i) => ({ group: `n${i}`, payload: i, opts: { tenant: 'V' } })), { group: 'b', payload: 1, opts: { tenant: v } }])],
  ['tenantWeight', 'queue', BAD_NAMES, (c, v) => L(c).tenantWeight(v, 'T', 2)],
  ['tenantWeight', 'tenant', BAD_NAMES, (c, v) => L(c).tenantWeight(c.q, v, 2)],
  ['tenantWeight', 'weight', [...BAD_REQUIRED_POSITIVE, 1_000_001], (c, v) => L(c).tenantWeight(c.q, 'T', v)],
  ['tenantLimit', 'queue', BAD_NAMES, (c, v) => L(c).tenantLimit(v, 'T', 2)],
  ['tenantLimit', 'tenant', BAD_NAMES, (c, v) => L(c).tenantLimit(c.q, v, 2)],
  ['tenantLimit', 'limit', [...BAD_REQUIRED_POSITIVE.filter((v) => v !== null), 1_000_001], (c, v) => L(c).tenantLimit(c.q, 'T', v)],
  ['pauseTenant', 'queue', BAD_NAMES, (c, v) => L(c).pauseTenant(v, 'T')],
  ['pauseTenant', 'tenant', BAD_NAMES, (c, v) => L(c).pauseTenant(c.q, v)],
  ['pauseTenant', 'opts', BAD_OPTS, (c, v) => L(c).pauseTenant(c.q, 'T', v)],
  ['pauseTenant', 'opts.forMs', [...BAD_POSITIVE, 10 * 365 * 24 * 3600 * 1000 + 1], (c, v) => L(c).pauseTenant(c.q, 'T', { forMs: v })],
  ['pauseTenant', 'opts.reason', [5, null, {}, [], true, 'x'.repeat(201)], (c, v) => L(c).pauseTenant(c.q, 'T', { reason: v })],
  ['resumeTenant', 'queue', BAD_NAMES, (c, v) => L(c).resumeTenant(v, 'T')],
  ['resumeTenant', 'tenant', BAD_NAMES, (c, v) => L(c).resumeTenant(c.q, v)],
  ['tenant', 'queue', BAD_NAMES, (c, v) => L(c).tenant(v, 'T')],
  ['tenant', 'tenant', BAD_NAMES, (c, v) => L(c).tenant(c.q, v)],
  ['queueLimit', 'queue', BAD_NAMES, (c, v) => L(c).queueLimit(v, 2)],
  ['queueLimit', 'limit', [...BAD_REQUIRED_POSITIVE.filter((v) => v !== null), 1_000_001], (c, v) => L(c).queueLimit(c.q, v)],

  ['topLanes', 'queue', BAD_NAMES, (c, v) => L(c).topLanes(v, 10)],
  ['topLanes', 'count', [...BAD_REQUIRED_POSITIVE, 1_001], (c, v) => L(c).topLanes(c.q, v)],
];

const label = (v: unknown): string => {
  if (typeof v === 'string') {
    const shown = JSON.stringify(v.length > 20 ? `${v.slice(0, 20)}…(${v.length})` : v);
    return shown.replace(/[\u007f-\u009f\uD800-\uDFFF]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  }
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'symbol' || typeof v === 'function') return String(v);
  if (v === circular) return '<circular>';
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
};

describe('bad input: every method rejects with an EchoMqError naming the argument, and writes nothing', () => {
  const engine = engineFixture({ maxPayloadBytes: 64, maxAttempts: 1 });
  const { queues } = engine;
  let client: IORedis;
  let lanes: LanesService;
  beforeAll(() => {
    ({ client, lanes } = engine);
  });

  /** A queue with pending, held, scheduled and dead jobs, settings, and a paused lane. */
  async function seed(): Promise<Ctx> {
    const q = queues.queue();
    const doomed = await lanes.submit(q, 'd', { doomed: true });
    const dying = await lanes.claim(q);
    expect(dying!.id).toBe(doomed);
    expect(await lanes.fail(q, doomed, dying!.attempt, 'seeded')).toBe('dead');
    await lanes.submitMany(q, [
      { group: 'a', payload: 1 }, { group: 'a', payload: 2 }, { group: 'b', payload: 3 },
      { group: 'paused', payload: 4 }, { group: 'a', payload: 5, opts: { delayMs: 0, dedupKey: 'dk' } },
      { group: 'c', payload: 6, opts: { delayMs: 3_600_000 } },
    ]);
    await lanes.pause(q, 'paused');
    await lanes.weight(q, 'a', 2);
    await lanes.limit(q, 'b', 3);
    await lanes.rate(q, 'b', { max: 10, perMs: 60_000 });
    await lanes.pause(q, 'c', { forMs: 3_600_000, reason: 'seeded' });
    const held = await lanes.claim(q, { leaseMs: 3_600_000 });
    return { lanes, q, heldId: held!.id, token: held!.attempt, deadId: doomed };
  }

  it.each(CASES.map((c) => [`${c[0]}() rejects a bad ${c[1]}`, c] as const))('%s', async (_name, [method, argument, values, call]) => {
    const ctx = await seed();
    const before = await snapshotAll(client);
    for (const value of values) {
      let error: unknown;
      try {
        await call(ctx, value);
      } catch (err) {
        error = err;
      }
      const what = `${method}(${argument} = ${label(value)})`;
      if (!(error instanceof EchoMqError)) throw new Error(`${what} did not reject with an EchoMqError: ${String(error)}`);
      if (error.argument !== argument) throw new Error(`${what} named "${error.argument}" instead of "${argument}": ${error.message}`);
      expect(error.message).toContain(argument);
      expect(error.code).toBe('INVALID_ARGUMENT');
      const after = await snapshotAll(client);
      if (JSON.stringify(after) !== JSON.stringify(before)) {
        expect({ what, keys: after }).toEqual({ what, keys: before });
      }
    }
  });

  it('a compat module rejects every tenant method and a submit naming a tenant with MISCONFIGURED, and writes nothing', async () => {
    const ctx = await seed();
    const compat = lanesOn(client, { compat: 'echomq' });
    const before = await snapshotAll(client);
    const calls: [string, () => Promise<unknown>][] = [
      ['submit', () => compat.submit(ctx.q, 'fresh', 1, { tenant: 'T' })],
      ['submitMany', () => compat.submitMany(ctx.q, [{ group: 'fresh', payload: 1, opts: { tenant: 'T' } }])],
      ['tenantWeight', () => compat.tenantWeight(ctx.q, 'T', 2)],
      ['tenantLimit', () => compat.tenantLimit(ctx.q, 'T', 2)],
      ['pauseTenant', () => compat.pauseTenant(ctx.q, 'T')],
      ['resumeTenant', () => compat.resumeTenant(ctx.q, 'T')],
      ['tenant', () => compat.tenant(ctx.q, 'T')],
    ];
    for (const [what, call] of calls) {
      const error = await call().then(() => null, (err: unknown) => err);
      if (!(error instanceof EchoMqError)) throw new Error(`${what} on a compat module did not reject with an EchoMqError: ${String(error)}`);
      expect({ what, code: error.code }).toEqual({ what, code: 'MISCONFIGURED' });
      expect(error.message).toContain('compat');
    }
    expect(await snapshotAll(client)).toEqual(before);
  });

  it('the seeded queue still works after all that (the checks are not just refusing everything)', async () => {
    const ctx = await seed();
    expect(await lanes.extend(ctx.q, ctx.heldId, ctx.token, 1_000)).toBe(true);
    expect(await lanes.complete(ctx.q, ctx.heldId, ctx.token)).toBe(true);
    expect(await lanes.retryDead(ctx.q, ctx.deadId)).toBe(true);
    expect(await lanes.limit(ctx.q, 'b', null)).toBeUndefined();
    expect(await lanes.submit(ctx.q, 'x'.repeat(200), { s: 'y'.repeat(40) })).toMatch(/^JOB/);
    expect(await lanes.submit(ctx.q, 'é'.repeat(100), null, undefined)).toMatch(/^JOB/);
    expect(await lanes.claim(ctx.q, null as never)).not.toBeNull();
    expect(await lanes.submit(ctx.q, 'fresh', 1, { tenant: 'T' })).toMatch(/^JOB/);
    expect(await lanes.submit(ctx.q, 'fresh', 2, { tenant: 'T' })).toMatch(/^JOB/);
    expect(await lanes.submit(ctx.q, 'fresh', 3)).toMatch(/^JOB/);
    expect(await lanes.lane(ctx.q, 'fresh')).toMatchObject({ tenant: 'T', pending: 3 });
  });
});
