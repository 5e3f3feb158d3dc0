// The ring as claims will serve it: a wheel read clockwise from the top, one slice per entry (a lane,
// or a tenant's entry that takes its turn for all its lanes), each slice as wide as the entry's weight
// and coloured by its head's age; beside it the same entries as a numbered list. Names go in as text.
import { count, duration, el, fill, svg } from './dom.js';
import { ageClass } from './fairness.js';
import { ringItem } from './tenants.js';

const R = 90;
const r = 56;
const GAP = 0.012;

const at = (radius, angle) => `${(radius * Math.sin(angle)).toFixed(2)} ${(-radius * Math.cos(angle)).toFixed(2)}`;

/** An annular slice from angle a0 to a1 (radians, 0 at the top, clockwise). */
function slicePath(a0, a1) {
  const large = a1 - a0 > Math.PI ? 1 : 0;
  return `M ${at(R, a0)} A ${R} ${R} 0 ${large} 1 ${at(R, a1)} L ${at(r, a1)} A ${r} ${r} 0 ${large} 0 ${at(r, a0)} Z`;
}

const cut = (name, n) => (name.length > n ? `${name.slice(0, n - 1)}…` : name);

function entryTitle(e, i) {
  const age = e.headWaitMs === null ? 'no head known' : `head waited ${duration(e.headWaitMs)}`;
  return `${i + 1}. ${e.kind === 'tenant' ? 'tenant ' : ''}${e.name}, weight ${e.weight}, ${age}`;
}

/** Age attributes that the page's ticker follows (see tickFairness). */
const ageAttrs = (ms) => (typeof ms === 'number' ? { 'data-age': String(ms), 'data-seen': String(performance.now()) } : {});

/** Draws the wheel of `entries` ({ kind, name, weight, headWaitMs }) into `node`; `more` entries follow them. */
export function drawWheel(node, entries, more) {
  if (entries.length === 0) {
    fill(node, svg('circle', { className: 'slice age-none', cx: 0, cy: 0, r: (R + r) / 2, fill: 'none', 'stroke-width': R - r }),
      svg('text', { className: 'centre', x: 0, y: 4, 'text-anchor': 'middle', text: 'empty ring' }));
    return;
  }
  const total = entries.reduce((n, e) => n + Math.max(1, e.weight), 0);
  const parts = [];
  let a = 0;
  entries.forEach((e, i) => {
    const span = (Math.max(1, e.weight) / total) * 2 * Math.PI;
    const cls = `slice ${ageClass(e.headWaitMs)}${e.kind === 'tenant' ? ' tenant' : ''}`;
    const title = svg('title', { text: entryTitle(e, i) });
    if (entries.length === 1) {
      parts.push(svg('circle', { className: cls, cx: 0, cy: 0, r: (R + r) / 2, fill: 'none', 'stroke-width': R - r, ...ageAttrs(e.headWaitMs) }, title));
    } else {
      parts.push(svg('path', { className: cls, d: slicePath(a + GAP, a + span - GAP), ...ageAttrs(e.headWaitMs) }, title));
    }
    if (span >= 0.22) {
      const mid = a + span / 2;
      const [x, y] = at((R + r) / 2, mid).split(' ');
      parts.push(svg('text', { className: 'slice-n', x, y: Number(y) + 3.5, 'text-anchor': 'middle', text: String(i + 1) }));
    }
    a += span;
  });
  // Where claims start, and which way they go round: an arrow at the top, pointing clockwise.
  parts.push(svg('path', { className: 'start', d: `M -4 ${-R - 9} L 6 ${-R - 5} L -4 ${-R - 1} Z` }));
  const first = entries[0];
  parts.push(svg('text', { className: 'centre sub', x: 0, y: -12, 'text-anchor': 'middle', text: 'next' }));
  parts.push(svg('text', { className: 'centre', x: 0, y: 4, 'text-anchor': 'middle', text: cut(first.kind === 'tenant' ? `tenant ${first.name}` : first.name, 14) }));
  parts.push(svg('text', { className: 'centre sub', x: 0, y: 20, 'text-anchor': 'middle', text: more > 0 ? `then ${count(entries.length - 1)} + ${count(more)} more` : `then ${count(entries.length - 1)}, round again` }));
  fill(node, ...parts);
}

/**
 * The ring of a frame: the wheel, and the list (`#ring`: entry names only, a tenant's marked; its
 * weight and head age shown by its class and a data attribute, not as text).
 */
export function renderRing(frame, listNode, wheelNode) {
  const entries = frame.fairness ? frame.fairness.ring : frame.ring.map((e) => ({ kind: 'lane', name: e, weight: 1, headWaitMs: null }));
  const more = frame.stats.ringLength - frame.ring.length;
  drawWheel(wheelNode, entries, more);
  if (frame.ring.length === 0) {
    fill(listNode, el('li', { className: 'empty', text: 'no lane is serviceable' }));
    return;
  }
  fill(listNode, ...frame.ring.map((entry, i) => {
    const li = ringItem(entry);
    const e = entries[i];
    if (e) {
      li.classList.add(ageClass(e.headWaitMs));
      if (e.weight > 1) li.dataset.weight = String(e.weight);
      li.title = entryTitle(e, i);
    }
    return li;
  }), more > 0 ? el('li', { className: 'empty', text: `+ ${count(more)} more` }) : null);
}
