// The cards at the top of the page: the queue's totals, its jobs by state and its ceiling, its lane
// counts, and the chart of completions per second. Every value goes in as text (see dom.js).
import { drawRates, drawStack } from './chart.js';
import { byId, count, duration, el, fill, rate } from './dom.js';

function dl(node, rows) {
  fill(node, ...rows.flatMap(([k, v, cls]) => [el('dt', { text: k }), el('dd', { text: v, className: cls })]));
}

/** The cards of one frame: totals, jobs by state (and the queue's ceiling), lane counts (and the fairness), the rate chart. */
export function renderCards(frame) {
  const s = frame.stats;
  const { latest, spanMs } = drawRates(byId('chart'), frame.history || []);
  dl(byId('totals'), [
    ['submitted', count(s.totals.submitted)],
    ['completed', count(s.totals.completed)],
    ['retried', count(s.totals.retried)],
    ['dead', count(s.totals.dead)],
    ['cancelled', count(s.totals.cancelled ?? 0)],
    ['completed/s, last 60 s', rate(s.completedPerSec)],
  ]);
  dl(byId('states'), [
    ['pending', count(s.pending)], ['scheduled', count(s.scheduled)], ['active', count(s.active)], ['dead', count(s.dead)],
    ['queue ceiling', s.limit === null || s.limit === undefined ? 'none' : `${count(s.limit)} active`, 'ceiling'],
  ]);
  drawStack(byId('states-bar'), [
    { value: s.pending, className: 's-pending' }, { value: s.scheduled, className: 's-scheduled' },
    { value: s.active, className: 's-active' }, { value: s.dead, className: 's-dead' },
  ]);
  dl(byId('lane-counts'), [
    ['lanes', count(s.lanes)], ['in the ring', count(s.ringLength)], ['paused', count(s.pausedLanes)],
    // NOTE: what a lane's share counts (LanesService.fairness): a turn, its declared cost, or its time.
    ['fair by', s.fairness ? s.fairness.by : 'jobs', 'fairness'],
    ...(s.paused ? [['queue', 'paused', 'paused']] : []),
  ]);
  byId('chart-span').textContent = spanMs ? `last ${duration(spanMs)}` : '';
  // NOTE: the legend's rates are the chart's latest step, not the totals card's minute: say which.
  fill(byId('chart-legend'),
    el('span', { className: 'window', text: latest ? `last ${duration(latest.stepMs)}:` : 'now:' }),
    el('span', { className: 'key completed', text: `completed ${latest ? rate(latest.completed) : '–'}/s` }),
    el('span', { className: 'key retried', text: `retried ${latest ? rate(latest.retried) : '–'}/s` }),
    el('span', { className: 'key dead', text: `dead ${latest ? rate(latest.dead) : '–'}/s` }));
}
