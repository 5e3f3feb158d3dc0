// The fairness view: per lane (grouped under its tenant), its share of what the last minute served
// drawn against the share its weight entitles it to, and how long its head job has waited, coloured
// by threshold. Read-only: no control here. Every name and reason goes in as text (see dom.js).
import { agedMs, byId, count, duration, el, fill, pauseText, svg } from './dom.js';

/** A head younger than this is fine (green). */
export const AGE_OK_MS = 5_000;
/** A head younger than this is worth a look (amber); older is starving (red). */
export const AGE_WARN_MS = 30_000;

/** The class of a head age: age-ok, age-warn, age-bad, or age-none when the lane holds no job. */
export function ageClass(ms) {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return 'age-none';
  return ms < AGE_OK_MS ? 'age-ok' : ms < AGE_WARN_MS ? 'age-warn' : 'age-bad';
}

const AGE_CLASSES = ['age-ok', 'age-warn', 'age-bad', 'age-none'];

/** A share as a percentage: 17%, 4.2%, –. */
export function percent(x) {
  if (typeof x !== 'number' || !Number.isFinite(x)) return '–';
  const p = x * 100;
  return `${p > 0 && p < 10 ? p.toFixed(1) : Math.round(p)}%`;
}

/** What a lane's work counts, by the queue's fairness mode. */
function workText(work, by) {
  if (by === 'time') return `${duration(work)} of handler time`;
  return `${count(Math.round(work))} cost`;
}

/**
 * An element showing a head age that the page keeps ageing between frames (see tickFairness): its
 * text and its colour class follow the clock.
 */
function ageSpan(ms, extraClass = '') {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return el('span', { className: `age-chip age-none ${extraClass}`, text: '–' });
  return el('span', {
    className: `age-chip ${ageClass(ms)} ${extraClass}`, 'data-age': String(ms), 'data-seen': String(performance.now()), text: duration(ms),
  });
}

/** Ages every head age of the view by the time since its frame came (a quiet queue sends no new frame). */
export function tickFairness() {
  const now = performance.now();
  for (const node of document.querySelectorAll('#fairness [data-age][data-seen]')) {
    const ms = agedMs(node, now);
    if (node.classList.contains('age-chip')) node.textContent = duration(ms);
    const cls = ageClass(ms);
    if (!node.classList.contains(cls)) {
      node.classList.remove(...AGE_CLASSES);
      node.classList.add(cls);
    }
  }
}

/** The bar scale: the smallest of 10%, 25%, 50%, 100% that holds every value shown. */
function scaleFor(values) {
  const top = Math.max(0, ...values.filter((v) => typeof v === 'number' && Number.isFinite(v)));
  return [0.1, 0.25, 0.5].find((s) => top <= s) ?? 1;
}

/**
 * A bar of a served share against an entitled share: the bar is what was served, the tick what its
 * weight entitles it to. A backlogged lane served under half its entitlement is drawn as short-served.
 */
function shareBar(share, entitled, scale, backlogged) {
  const x = (v) => Math.min(100, (v / scale) * 100);
  const short = backlogged && typeof entitled === 'number' && entitled > 0 && (share ?? 0) < entitled / 2;
  return svg('svg', { className: 'share-bar', viewBox: '0 0 100 12', preserveAspectRatio: 'none', 'aria-hidden': 'true' },
    svg('rect', { className: 'track', x: 0, y: 2, width: 100, height: 8 }),
    typeof share === 'number' ? svg('rect', { className: short ? 'served short' : 'served', x: 0, y: 2, width: x(share), height: 8 }) : null,
    typeof entitled === 'number' ? svg('line', { className: 'entitled', x1: x(entitled), x2: x(entitled), y1: 0, y2: 12 }) : null);
}

/** The share cell: the bar, then the two figures in words. */
function shareCell(share, entitled, scale, backlogged) {
  return el('td', { className: 'share', 'data-share': share ?? '', 'data-entitled': entitled ?? '' },
    shareBar(share, entitled, scale, backlogged),
    el('span', { className: 'figures' },
      el('span', { className: 'served-pct', text: share === null ? 'not among the most served' : percent(share) }),
      el('span', { className: 'entitled-pct', text: entitled === null ? '' : ` of ${percent(entitled)} entitled` })));
}

/** Why a lane is served or not, in words (a pause with its end and its reason). */
function laneState(lane) {
  if (lane.paused) {
    return { text: `paused · ${pauseText(lane)}`, cls: 'paused' };
  }
  if (!lane.backlogged && lane.pending === 0) return { text: 'idle (nothing pending)', cls: '' };
  if (lane.inRing) return { text: 'in ring', cls: '' };
  return { text: 'out of ring', cls: 'paused' };
}

function tenantStateText(t) {
  if (!t) return { text: '', cls: '' };
  if (t.paused) return { text: `paused · ${pauseText(t)}`, cls: 'paused' };
  return { text: t.inRing ? 'in ring' : t.pending === 0 ? 'idle (nothing pending)' : 'out of ring', cls: '' };
}

function servedCell(served, work, by) {
  if (served === null) return el('td', { className: 'n', text: '–' });
  return el('td', { className: 'n' }, el('span', { text: `${count(served)} ${served === 1 ? 'job' : 'jobs'}` }),
    by !== 'jobs' && work !== null ? el('span', { className: 'state', text: workText(work, by) }) : null);
}

function laneRow(lane, view, scale) {
  const s = laneState(lane);
  return el('tr', { className: 'lane', 'data-lane': lane.group },
    el('td', { className: 'name' }, el('span', { text: lane.group })),
    shareCell(lane.share, lane.entitled, scale, lane.backlogged),
    servedCell(lane.served, lane.work, view.by),
    el('td', { className: 'n', text: count(lane.weight) }),
    el('td', { className: 'age' }, ageSpan(lane.headWaitMs)),
    el('td', { className: `why ${s.cls}`, text: s.text }));
}

const sum = (xs) => (xs.some((x) => typeof x === 'number') ? xs.reduce((n, x) => n + (typeof x === 'number' ? x : 0), 0) : null);

function tenantRow(name, own, t, view, scale) {
  const s = tenantStateText(t);
  const ages = own.map((l) => l.headWaitMs).filter((a) => typeof a === 'number');
  return el('tr', { className: 'tenant', 'data-tenant': name },
    el('td', { className: 'name' }, el('span', { className: 'kind', text: 'tenant' }), el('span', { text: name }),
      el('span', { className: 'sub', text: `${count(own.length)} ${own.length === 1 ? 'lane' : 'lanes'} listed` })),
    shareCell(sum(own.map((l) => l.share)), sum(own.map((l) => l.entitled)), scale, own.some((l) => l.backlogged)),
    servedCell(sum(own.map((l) => l.served)), sum(own.map((l) => l.work)), view.by),
    el('td', { className: 'n', text: t ? count(t.weight) : '–' }),
    el('td', { className: 'age' }, ageSpan(ages.length ? Math.max(...ages) : null)),
    el('td', { className: `why ${s.cls}`, text: s.text }));
}

/** The rows: each tenant with a listed lane (in the order its first lane comes), then its lanes; then lanes of no tenant. */
function rows(view, tenants) {
  const byTenant = new Map();
  const loose = [];
  for (const lane of view.lanes) {
    if (!lane.tenant) loose.push(lane);
    else if (byTenant.has(lane.tenant)) byTenant.get(lane.tenant).push(lane);
    else byTenant.set(lane.tenant, [lane]);
  }
  const values = view.lanes.flatMap((l) => [l.share, l.entitled]);
  for (const own of byTenant.values()) values.push(sum(own.map((l) => l.share)), sum(own.map((l) => l.entitled)));
  const scale = scaleFor(values);
  const out = [];
  for (const [name, own] of byTenant) {
    out.push(tenantRow(name, own, tenants.get(name), view, scale));
    for (const lane of own) {
      const row = laneRow(lane, view, scale);
      row.classList.add('in-tenant');
      out.push(row);
    }
  }
  return { rows: [...out, ...loose.map((lane) => laneRow(lane, view, scale))], scale };
}

const MODE_WORDS = { jobs: 'jobs served', cost: 'declared cost served', time: 'handler time served' };

/** Draws the view of one frame; `tenants` are the frame's tenant reads by name. */
export function renderFairness(frame, tenants) {
  const view = frame.fairness;
  const body = byId('fair').tBodies[0];
  if (!view) {
    fill(body, el('tr', { className: 'empty' }, el('td', { colspan: 6, text: 'no fairness figures in this frame' })));
    return;
  }
  byId('fair-window').textContent = `last ${duration(view.windowMs)}, shares of ${MODE_WORDS[view.by] ?? 'jobs served'}`;
  fill(byId('fair-summary'),
    el('span', { className: 'jain', title: "Jain's index of served ÷ weight over the backlogged lanes: 1 when each got its weight's share, 1/n when one got everything",
      text: view.jain === null ? 'Jain index: – (fewer than two backlogged lanes)' : `Jain index ${view.jain.toFixed(2)}` }),
    el('span', { className: 'oldest' }, view.oldestWaitMs === null ? 'no head waiting' : [
      'oldest head ', ageSpan(view.oldestWaitMs), view.oldestLane === null ? '' : ' in lane ', view.oldestLane === null ? '' : el('code', { text: view.oldestLane }),
    ]));
  const { rows: trs, scale } = rows(view, tenants);
  if (trs.length === 0) fill(body, el('tr', { className: 'empty' }, el('td', { colspan: 6, text: 'nothing served in the window, and no head waiting' })));
  else fill(body, ...trs);
  byId('fair-scale').textContent = `bar to ${percent(scale)}`;
  const served = view.lanes.filter((l) => l.served !== null && l.served > 0).length;
  byId('fair-note').textContent = served === 0 ? '' : view.complete
    ? `every lane served in the last ${duration(view.windowMs)} (${count(served)}), then the heads that waited longest; a share is of all the queue served`
    : `the ${count(served)} lanes served most in the last ${duration(view.windowMs)}, then the heads that waited longest; a share is of what these ${count(served)} were served`;
}

/** The legend: what the bars and the colours say (drawn once). */
export function renderFairnessLegend() {
  fill(byId('fair-legend'),
    el('span', { className: 'key served', text: 'served share' }),
    el('span', { className: 'key entitled', text: "entitled share (its weight's, among the lanes backlogged now)" }),
    el('span', { className: 'key short', text: 'backlogged, served under half its entitlement' }),
    el('span', { className: 'key', text: 'head age:' }),
    el('span', { className: 'key age-ok', text: `under ${duration(AGE_OK_MS)}` }),
    el('span', { className: 'key age-warn', text: `${duration(AGE_OK_MS)} to ${duration(AGE_WARN_MS)}` }),
    el('span', { className: 'key age-bad', text: `${duration(AGE_WARN_MS)} or more` }));
}
