// Tenants on the page: the lanes table grouped under their tenant (a tenant row, then its lanes;
// lanes of no tenant after them, as before), and the tenant's Steer panel (pause with minutes and a
// reason, resume, weight, ceiling). Every name goes in as text (see dom.js).
import { backlogBar } from './chart.js';
import { byId, count, duration, el, PAUSE_MINUTES_HINT, pauseForMs, pauseText } from './dom.js';

/** A tenant's entry on the queue's ring: '{t}' and the name ('{' cannot open a lane's name). */
export const TENANT_ENTRY = '{t}';

/** Why a tenant is off the ring, in words. */
export function tenantState(t) {
  if (t.inRing) return { text: 'in ring', out: false };
  if (t.paused) return { text: 'paused', out: true };
  if (t.pending === 0) return { text: 'empty', out: false };
  if (t.limit !== null && t.active >= t.limit) return { text: 'at ceiling', out: true };
  return { text: 'no lane serviceable', out: true };
}

/** A tenant's row: its name and state, its lanes' sums, its settings; Steer unless read-only. */
function tenantRow(name, t, maxPending, readOnly, onSteer) {
  const s = t ? tenantState(t) : { text: 'tenant', out: false };
  const cells = [
    el('td', { className: 'name' }, el('span', { className: 'kind', text: 'tenant' }), el('span', { text: name }),
      el('span', { className: s.out ? 'state out' : 'state', text: s.text }),
      t ? el('span', { className: 'sub', text: `${count(t.lanes)} ${t.lanes === 1 ? 'lane' : 'lanes'}` }) : null),
    el('td', { className: 'n' }, t ? el('span', { className: 'backlog' }, backlogBar(t.pending, maxPending), el('span', { text: count(t.pending) })) : '–'),
    el('td', { className: 'n', text: t ? count(t.active) : '–' }),
    el('td', { className: 'n', text: t ? count(t.weight) : '–' }),
    el('td', { className: 'n', text: t && t.limit !== null ? count(t.limit) : '–' }),
    el('td', { text: '' }),
    el('td', { className: t && t.paused ? 'paused' : '', text: t ? pauseText(t) : '' }),
    el('td', { text: '' }),
  ];
  if (!readOnly) {
    cells.push(el('td', { className: 'act' }, el('button', { type: 'button', text: 'Steer', 'data-tenant': name, onclick: () => onSteer(name, t) })));
  }
  return el('tr', { className: 'tenant', 'data-tenant': name }, cells);
}

/**
 * The table's rows: each tenant that has a listed lane (in the order its first lane comes), its row
 * and then its lanes; then the lanes of no tenant. `tenants` are the frame's tenant reads by name (a
 * tenant of a search's lane may not be among them: its row then shows its name only).
 */
export function groupedRows(lanes, tenants, laneRow, { maxPending, readOnly, onSteer }) {
  const byTenant = new Map();
  const loose = [];
  for (const lane of lanes) {
    if (!lane.tenant) loose.push(lane);
    else if (byTenant.has(lane.tenant)) byTenant.get(lane.tenant).push(lane);
    else byTenant.set(lane.tenant, [lane]);
  }
  const max = Math.max(maxPending, ...[...byTenant.keys()].map((n) => (tenants.get(n) ? tenants.get(n).pending : 0)));
  const rows = [];
  for (const [name, own] of byTenant) {
    rows.push(tenantRow(name, tenants.get(name), max, readOnly, onSteer));
    for (const lane of own) {
      const row = laneRow(lane, max);
      row.classList.add('in-tenant');
      rows.push(row);
    }
  }
  return [...rows, ...loose.map((lane) => laneRow(lane, max))];
}

/** A ring entry as the page lists it: a tenant's marked as such. */
export function ringItem(entry) {
  if (!entry.startsWith(TENANT_ENTRY)) return el('li', { text: entry, title: entry });
  const name = entry.slice(TENANT_ENTRY.length);
  return el('li', { className: 'tenant', title: `tenant ${name}`, 'data-tenant': name }, el('span', { className: 'kind', text: 'tenant' }), el('span', { text: name }));
}

/**
 * The tenant Steer panel. `act(path, body, done)` posts a change and answers the tenant as it is
 * now (or null); `tenantOf(name)` is the latest read of it, to describe it from the frames.
 */
export function wireTenantPanel(act, toast) {
  let selected = null;
  const describe = (t) => {
    if (!t || t.tenant !== selected) return;
    const s = tenantState(t);
    byId('tpanel-state').textContent = `${count(t.lanes)} lanes, ${count(t.pending)} pending, ${count(t.active)} active, weight ${t.weight}, `
      + `ceiling ${t.limit ?? 'none'}; ${s.text}` + (t.paused ? ` (${pauseText(t)})` : '');
  };
  const change = async (path, body, done) => describe(await act(path, { tenant: selected, ...body }, done));
  const form = (id, handler) => byId(id).addEventListener('submit', (e) => {
    e.preventDefault();
    handler(new FormData(e.target));
  });
  form('t-pause', (f) => {
    const forMs = pauseForMs(f.get('minutes'));
    if (forMs === null) {
      toast(PAUSE_MINUTES_HINT, true);
      return;
    }
    const reason = f.get('reason');
    const body = {};
    if (forMs !== undefined) body.forMs = forMs;
    if (reason !== '') body.reason = reason;
    change('tenant/pause', body, `Paused tenant ${selected}${body.forMs ? ` for ${duration(body.forMs)}` : ''}`);
  });
  byId('t-resume').addEventListener('click', () => change('tenant/resume', {}, `Resumed tenant ${selected}`));
  form('t-weight', (f) => change('tenant/weight', { weight: Number(f.get('weight')) }, `Tenant ${selected} has weight ${f.get('weight')}`));
  form('t-limit', (f) => {
    const v = f.get('limit');
    if (v !== '' && !(Number.isInteger(Number(v)) && Number(v) >= 1)) {
      toast('Jobs at once: a whole number from 1, or empty for none.', true);
      return;
    }
    change('tenant/limit', { limit: v === '' ? null : Number(v) }, v === '' ? `Tenant ${selected} has no ceiling` : `Tenant ${selected} has ceiling ${v}`);
  });
  byId('tpanel-close').addEventListener('click', () => {
    byId('tpanel').hidden = true;
    selected = null;
  });
  return {
    open(name, t) {
      selected = name;
      byId('tpanel-tenant').textContent = name;
      byId('tpanel-state').textContent = '';
      describe(t);
      const panel = byId('tpanel');
      panel.hidden = false;
      panel.scrollIntoView({ block: 'nearest' });
    },
    /** Keeps the open panel true to the frames. */
    refresh(tenants) {
      if (selected !== null) describe(tenants.get(selected));
    },
    get selected() {
      return selected;
    },
  };
}
