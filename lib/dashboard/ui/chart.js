// The rate chart: jobs per second over the recent totals, drawn as SVG polylines.
import { fill, svg } from './dom.js';

const W = 300;
const H = 90;
const SERIES = ['completed', 'retried', 'dead'];

/** Per-second rates between consecutive points of the totals history. */
export function ratesOf(history) {
  const out = [];
  for (let i = 1; i < history.length; i++) {
    const a = history[i - 1];
    const b = history[i];
    const dt = (b.t - a.t) / 1000;
    if (dt <= 0) continue;
    const r = { t: b.t, stepMs: b.t - a.t };
    for (const s of SERIES) r[s] = Math.max(0, (b[s] - a[s]) / dt);
    out.push(r);
  }
  return out;
}

/** Draws the rates into `node` (an <svg> with viewBox 0 0 300 90). Returns the latest rates. */
export function drawRates(node, history) {
  const rates = ratesOf(history);
  const peak = Math.max(1, ...rates.flatMap((r) => SERIES.map((s) => r[s])));
  const t0 = rates.length ? rates[0].t : 0;
  const span = rates.length > 1 ? rates[rates.length - 1].t - t0 : 1;
  const x = (t) => ((t - t0) / span) * W;
  const y = (v) => H - 2 - (v / peak) * (H - 14);
  const parts = [
    svg('line', { x1: 0, x2: W, y1: y(peak), y2: y(peak), className: 'grid-line' }),
    svg('line', { x1: 0, x2: W, y1: y(0), y2: y(0), className: 'grid-line' }),
    svg('text', { x: 2, y: 10, 'font-size': 9, fill: 'currentColor', text: `${Math.round(peak)}/s` }),
  ];
  if (rates.length > 1) {
    for (const s of SERIES) {
      const points = rates.map((r) => `${x(r.t).toFixed(1)},${y(r[s]).toFixed(1)}`).join(' ');
      parts.push(svg('polyline', { points, className: `s-${s}` }));
    }
  } else {
    parts.push(svg('text', { x: W / 2, y: H / 2, 'font-size': 10, 'text-anchor': 'middle', fill: 'currentColor', text: 'collecting…' }));
  }
  fill(node, ...parts);
  return { latest: rates[rates.length - 1] ?? null, spanMs: rates.length > 1 ? span : 0 };
}

/** A horizontal stacked bar of parts [{ value, className }] into `node` (viewBox 0 0 100 6). */
export function drawStack(node, parts) {
  const total = parts.reduce((n, p) => n + p.value, 0);
  let at = 0;
  const rects = [svg('rect', { x: 0, y: 0, width: 100, height: 6, fill: 'currentColor', 'fill-opacity': 0.08 })];
  if (total > 0) {
    for (const p of parts) {
      const w = (p.value / total) * 100;
      if (w > 0) rects.push(svg('rect', { x: at, y: 0, width: w, height: 6, className: p.className }));
      at += w;
    }
  }
  fill(node, ...rects);
}

/** A small backlog bar: `value` against `max`. */
export function backlogBar(value, max) {
  const w = max > 0 ? Math.max(value > 0 ? 2 : 0, (value / max) * 60) : 0;
  return svg('svg', { viewBox: '0 0 60 8', 'aria-hidden': 'true' },
    svg('rect', { x: 0, y: 0, width: 60, height: 8, rx: 2, className: 'track' }),
    svg('rect', { x: 0, y: 0, width: w, height: 8, rx: 2, className: 'fill' }));
}
