// The EchoMQ dashboard page: reads its config, follows the live stream of one queue at a time,
// and (unless read-only) sends changes. Plain modules, no framework, no build step.
import { get, post, stream } from './api.js';
import { renderCards } from './cards.js';
import { backlogBar } from './chart.js';
import { agedMs, byId, clock, count, duration, el, fill, PAUSE_MINUTES_HINT, pauseForMs, pauseText } from './dom.js';
import { renderFairness, renderFairnessLegend, tickFairness } from './fairness.js';
import { showJob, wireJobView } from './job-view.js';
import { renderRing } from './ring.js';
import { groupedRows, wireTenantPanel } from './tenants.js';

const state = {
  config: null,
  queue: null,
  source: null,
  frame: null,
  laneCount: 50,
  /** While a search or a longer list is shown, frames do not replace the lanes table. */
  view: 'top',
  search: null,
  selected: null,
  /** The frame's tenants by name (the lanes table groups lanes under them), and the tenant panel. */
  tenants: new Map(),
  tenantPanel: null,
  /** The Steer panel's lane read in flight, if any (see refreshPanel). */
  panelRead: null,
  toastTimer: 0,
};

function toast(message, isError = false) {
  const t = byId('toast');
  t.textContent = message;
  t.className = isError ? 'toast error' : 'toast';
  t.hidden = false;
  clearTimeout(state.toastTimer);
  state.toastTimer = setTimeout(() => (t.hidden = true), isError ? 8000 : 4000);
}

function setLive(s) {
  const live = byId('live');
  if (s === 'snapshot') {
    // NOTE: the frame drawn with the page, until the live stream opens.
    live.className = 'live';
    live.textContent = `as of ${clock(state.frame.at)}`;
    return;
  }
  live.className = `live ${s === 'on' ? 'on' : 'off'}`;
  live.textContent = s === 'on' ? 'live' : s === 'closed' ? 'disconnected' : 'reconnecting…';
}

// ---- lanes ----

/** Why a lane is out of the ring, in words. */
function laneState(lane) {
  if (lane.inRing) return { text: 'in ring', out: false };
  if (lane.paused) return { text: 'paused', out: true };
  if (lane.pending === 0) return { text: 'empty', out: false };
  // An ordered lane serves one job at a time, and waits out its failed head's backoff off the ring.
  if (lane.ordered) return { text: lane.active > 0 ? 'ordered: one at a time' : 'ordered: retry due', out: true };
  if (lane.limit !== null && lane.active >= lane.limit) return { text: 'at ceiling', out: true };
  if (lane.rate) return { text: 'at rate', out: true };
  return { text: 'out of ring', out: true };
}

function headCell(lane) {
  if (lane.pending === 0) return '';
  if (!lane.head) return lane.head === null ? '' : '…';
  const p = lane.head.position;
  if (!p) return lane.head.jobId;
  if (p.ringIndex === null) return 'waits: lane out of ring';
  const wait = p.estimatedWaitMs === null ? 'no rate yet' : `~${duration(p.estimatedWaitMs)}`;
  return `${p.exact ? '' : '≤ '}${count(p.ahead)} ahead · ${wait}`;
}

/**
 * How long the lane's head has been ready (the starvation signal), first in the head cell. A quiet
 * queue sends no new frames, so the page ages it itself between them (see tickHeadAges).
 */
function headAge(lane) {
  if (lane.headWaitMs === null || lane.headWaitMs === undefined) return '';
  return el('span', { className: 'age', 'data-age': String(lane.headWaitMs), 'data-seen': String(performance.now()), text: headAgeText(lane.headWaitMs) });
}

const headAgeText = (ms) => `waited ${duration(ms)} · `;

function tickHeadAges() {
  const now = performance.now();
  for (const node of document.querySelectorAll('#lanes span.age[data-age]')) {
    node.textContent = headAgeText(agedMs(node, now));
  }
}

function laneRow(lane, maxPending) {
  const s = laneState(lane);
  const cells = [
    el('td', { className: 'name' }, el('span', { text: lane.group }), el('span', { className: s.out ? 'state out' : 'state', text: s.text })),
    el('td', { className: 'n' }, el('span', { className: 'backlog' }, backlogBar(lane.pending, maxPending), el('span', { text: count(lane.pending) }))),
    el('td', { className: 'n', text: count(lane.active) }),
    el('td', { className: 'n', text: count(lane.weight) }),
    el('td', { className: 'n', text: (lane.limit === null ? '–' : count(lane.limit)) + (lane.ordered ? ' · ordered' : '') }),
    el('td', { text: lane.rate ? `${count(lane.rate.max)} / ${duration(lane.rate.perMs)}` : '–' }),
    el('td', { className: lane.paused ? 'paused' : '', text: pauseText(lane) }),
    el('td', {}, headAge(lane), el('span', { text: headCell(lane) })),
  ];
  if (!state.config.readOnly) {
    cells.push(el('td', { className: 'act' }, el('button', { type: 'button', text: 'Steer', 'data-lane': lane.group, onclick: () => openPanel(lane) })));
  }
  return el('tr', { 'data-lane': lane.group }, cells);
}

function renderLanes(lanes, note, canMore) {
  const body = byId('lanes').tBodies[0];
  const max = lanes.reduce((m, l) => Math.max(m, l.pending), 0);
  const cols = state.config.readOnly ? 8 : 9;
  if (lanes.length === 0) fill(body, el('tr', { className: 'empty' }, el('td', { colspan: cols, text: 'no lanes' })));
  else {
    fill(body, ...groupedRows(lanes, state.tenants, laneRow, {
      maxPending: max, readOnly: state.config.readOnly, onSteer: (name, t) => steerTenant(name, t),
    }));
  }
  byId('lanes-note').textContent = note;
  byId('lanes-more').hidden = !canMore;
}

function renderTopLanes(frame) {
  if (state.view !== 'top') return;
  const total = frame.stats.lanes;
  renderLanes(frame.lanes, `the ${count(frame.lanes.length)} with most pending, of ${count(total)} lanes`, frame.lanes.length < total && state.laneCount < 1000);
}

async function showMore() {
  state.laneCount = Math.min(1000, state.laneCount * 4);
  state.view = 'more';
  try {
    const lanes = await get('lanes', { queue: state.queue, count: state.laneCount });
    renderLanes(lanes, `the ${count(lanes.length)} with most pending (refreshed on request)`, lanes.length >= state.laneCount && state.laneCount < 1000);
    byId('search-clear').hidden = false;
  } catch (err) {
    toast(err.message, true);
  }
}

async function runSearch(text, cursor) {
  try {
    const r = await get('search', { queue: state.queue, q: text, cursor });
    state.view = 'search';
    const rows = cursor ? [...state.search.rows, ...r.matches] : [...(r.exact ? [r.exact] : []), ...r.matches];
    state.search = { text, cursor: r.cursor, rows };
    const note = rows.length === 0 ? `no lane named or containing “${text}”` : `${count(rows.length)} ${rows.length === 1 ? 'lane' : 'lanes'} for “${text}”`;
    renderLanes(rows, r.cursor ? `${note} so far (looked through part of the queue)` : note, false);
    const more = byId('lanes-more');
    if (r.cursor) {
      more.hidden = false;
      more.textContent = 'Look further';
    }
    byId('search-clear').hidden = false;
  } catch (err) {
    toast(err.message, true);
  }
}

function backToTop() {
  state.view = 'top';
  state.search = null;
  state.laneCount = 50;
  byId('search-text').value = '';
  byId('search-clear').hidden = true;
  byId('lanes-more').textContent = 'Show more';
  if (state.frame) renderTopLanes(state.frame);
}

// ---- dead letters ----

function renderDead(frame) {
  const body = byId('dead').tBodies[0];
  byId('dead-note').textContent = frame.stats.dead > frame.dead.length ? `latest ${count(frame.dead.length)} of ${count(frame.stats.dead)}` : '';
  const cols = state.config.readOnly ? 5 : 6;
  if (frame.dead.length === 0) {
    fill(body, el('tr', { className: 'empty' }, el('td', { colspan: cols, text: 'none' })));
    return;
  }
  fill(body, ...frame.dead.map((d) => el('tr', {},
    el('td', {}, el('button', { type: 'button', className: 'link', title: 'Show this job', onclick: () => showJob(state.queue, d.id, (m) => toast(m, true)) },
      el('code', { text: d.id }))),
    el('td', { className: 'name', text: d.group }),
    el('td', { className: 'n', text: count(d.attempt) }),
    el('td', { className: 'err', text: d.lastError ?? '' }),
    el('td', { className: 'payload', text: d.payload }),
    state.config.readOnly ? null : el('td', { className: 'act' }, el('button', { type: 'button', text: 'Retry', onclick: () => retry(d) })),
  )));
}

// ---- actions ----

async function act(path, body, done) {
  try {
    const lane = await post(path, { queue: state.queue, ...body }, state.config.actionHeader);
    toast(done);
    if (lane && lane.group !== undefined && state.selected === lane.group) describeLane(lane);
    return lane;
  } catch (err) {
    toast(err.message, true);
    return null;
  }
}

/** Opens the tenant panel; a tenant the frame did not read (one of a search's lanes) is read first. */
async function steerTenant(name, t) {
  try {
    state.tenantPanel.open(name, t ?? (await get('tenant', { queue: state.queue, tenant: name })));
  } catch (err) {
    toast(err.message, true);
  }
}

function retry(d) {
  act('retry', { jobId: d.id }, `Job ${d.id} is back in lane ${d.group}`);
}

function describeLane(lane) {
  const s = laneState(lane);
  byId('panel-state').textContent = `${count(lane.pending)} pending, ${count(lane.active)} active, weight ${lane.weight}, `
    + `ceiling ${lane.limit ?? 'none'}${lane.ordered ? ', ordered' : ''}, ${lane.rate ? `rate ${lane.rate.max} per ${duration(lane.rate.perMs)}` : 'no rate'}; ${s.text}`
    + (lane.paused ? ` (${pauseText(lane)})` : '');
}

/**
 * Keeps the open Steer panel true to the frames: a lane among the frame's top lanes is described
 * from it; one that is not (drained, say) is read again, one read at a time.
 */
function refreshPanel(frame) {
  const group = state.selected;
  if (group === null) return;
  const lane = frame.lanes.find((l) => l.group === group);
  if (lane) {
    describeLane(lane);
    return;
  }
  if (state.panelRead) return;
  state.panelRead = get('lane', { queue: state.queue, group })
    .then((fresh) => {
      if (state.selected === group) describeLane(fresh);
    })
    .catch(() => undefined)
    .finally(() => (state.panelRead = null));
}

function openPanel(lane) {
  state.selected = lane.group;
  byId('panel-lane').textContent = lane.group;
  describeLane(lane);
  const panel = byId('panel');
  panel.hidden = false;
  panel.scrollIntoView({ block: 'nearest' });
}

function wirePanel() {
  const form = (id, handler) => byId(id).addEventListener('submit', (e) => {
    e.preventDefault();
    handler(new FormData(e.target));
  });
  const group = () => state.selected;
  form('f-pause', (f) => {
    const forMs = pauseForMs(f.get('minutes'));
    if (forMs === null) {
      toast(PAUSE_MINUTES_HINT, true);
      return;
    }
    const reason = f.get('reason');
    const body = { group: group() };
    if (forMs !== undefined) body.forMs = forMs;
    if (reason !== '') body.reason = reason;
    act('pause', body, `Paused lane ${group()}${body.forMs ? ` for ${duration(body.forMs)}` : ''}`);
  });
  byId('f-resume').addEventListener('click', () => act('resume', { group: group() }, `Resumed lane ${group()}`));
  form('f-weight', (f) => act('weight', { group: group(), weight: Number(f.get('weight')) }, `Lane ${group()} has weight ${f.get('weight')}`));
  form('f-limit', (f) => {
    const v = f.get('limit');
    act('limit', { group: group(), limit: v === '' ? null : Number(v) }, v === '' ? `Lane ${group()} has no ceiling` : `Lane ${group()} has ceiling ${v}`);
  });
  form('f-rate', (f) => {
    // NOTE: checked here in the form's own units; the API's message would speak of perMs.
    const max = Number(f.get('max'));
    const seconds = Number(f.get('seconds'));
    if (f.get('max') === '' || !Number.isInteger(max) || max < 1 || max > 1_000_000) {
      toast('At most: a whole number of jobs from 1 to 1,000,000.', true);
      return;
    }
    const perMs = Math.round(seconds * 1000);
    if (f.get('seconds') === '' || !Number.isFinite(seconds) || perMs < 1 || perMs > 86_400_000) {
      toast('Per seconds: from 0.001 to 86,400 seconds (one day).', true);
      return;
    }
    act('rate', { group: group(), rate: { max, perMs } }, `Lane ${group()}: at most ${max} per ${duration(perMs)}`);
  });
  byId('f-unrate').addEventListener('click', () => act('rate', { group: group(), rate: null }, `Lane ${group()} has no rate ceiling`));
  byId('panel-close').addEventListener('click', () => {
    byId('panel').hidden = true;
    state.selected = null;
  });
}

// ---- frames and queues ----

function render(frame) {
  state.frame = frame;
  state.tenants = new Map((frame.tenants || []).map((t) => [t.tenant, t]));
  renderCards(frame);
  renderFairness(frame, state.tenants);
  renderRing(frame, byId('ring'), byId('ring-wheel'));
  renderTopLanes(frame);
  renderDead(frame);
  if (state.config && !state.config.readOnly) {
    refreshPanel(frame);
    state.tenantPanel.refresh(state.tenants);
  }
  document.body.dataset.frameAt = String(frame.at);
}

/** Follows `queue`; `first`, a frame that came with the page, is drawn at once. */
function selectQueue(queue, first = null) {
  if (state.source) state.source.close();
  state.queue = queue;
  state.frame = null;
  backToTop();
  for (const b of byId('queues').querySelectorAll('button')) b.setAttribute('aria-current', String(b.dataset.queue === queue));
  document.title = `${queue} · EchoMQ lanes`;
  if (first) {
    render(first);
    setLive('snapshot');
  }
  state.source = stream(queue, render, setLive);
}

/** The config and first frame the server put in the page (none behind a guard, or from a slow server). */
function firstFromPage() {
  const block = document.getElementById('echomq-first');
  if (!block) return null;
  try {
    return JSON.parse(block.textContent);
  } catch {
    return null;
  }
}

async function main() {
  // NOTE: with the page's own data, everything up to the first render runs before the load event.
  const first = firstFromPage();
  try {
    state.config = first ? first.config : await get('config');
  } catch (err) {
    setLive('closed');
    toast(`Could not load the dashboard: ${err.message}`, true);
    return;
  }
  const { queues, readOnly } = state.config;
  byId('mode').textContent = readOnly ? 'read-only' : 'can change lanes';
  if (readOnly) {
    byId('panel').remove();
    byId('tpanel').remove();
    for (const th of document.querySelectorAll('th.act')) th.remove();
  } else {
    wirePanel();
    state.tenantPanel = wireTenantPanel((path, body, done) => act(path, body, done), toast);
  }
  fill(byId('queues'), ...queues.map((q) => el('button', { type: 'button', text: q, 'data-queue': q, onclick: () => selectQueue(q) })));
  byId('search').addEventListener('submit', (e) => {
    e.preventDefault();
    const text = byId('search-text').value.trim();
    if (text) runSearch(text);
    else backToTop();
  });
  byId('search-clear').addEventListener('click', backToTop);
  wireJobView(() => state.queue, (m) => toast(m, true));
  byId('lanes-more').addEventListener('click', () => (state.view === 'search' ? runSearch(state.search.text, state.search.cursor) : showMore()));
  byId('search-text').disabled = false;
  byId('search-go').disabled = false;
  renderFairnessLegend();
  setInterval(() => {
    tickHeadAges();
    tickFairness();
  }, 1_000);
  if (queues.length === 0) {
    setLive('closed');
    toast('No queue to show: pass queues to EchoMqDashboardModule.forRoot, or add a @LaneConsumer.', true);
    return;
  }
  const wanted = new URLSearchParams(location.search).get('queue');
  const queue = queues.includes(wanted) ? wanted : queues[0];
  selectQueue(queue, first && first.queue === queue ? first.frame : null);
}

main();
