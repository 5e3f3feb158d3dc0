'use strict';
// The log-scale wait axis the tenant charts share (tenants.svg, tenants-spread.svg, costly.svg): one
// side of a run waits milliseconds and the other seconds, so the axis spans powers of ten of ms.

/** A wait in ms, as the charts print it. */
function ms(x) {
  if (!Number.isFinite(x)) return '—';
  if (x >= 1000) return `${(x / 1000).toFixed(2)} s`;
  if (x >= 100) return `${Math.round(x)} ms`;
  if (x >= 10) return `${x.toFixed(1)} ms`;
  return `${x.toFixed(2)} ms`;
}

/** An axis label for a power of ten of ms: 0.1 ms, 1 ms, 10 ms, 100 ms, 1 s, 10 s. */
const tick = (v) => (v >= 1000 ? `${v / 1000} s` : `${v} ms`);

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The axis over `values` (ms) in the plot area at x `L`, y `T`, `pw` × `ph`: `ys(v)` maps a wait to
 * its y, and `grid` holds one line and label per power of ten. With `across`, the waits run left to
 * right instead (costly.svg puts one row per side): `xs(v)` maps a wait to its x, and the grid's
 * lines are upright with their labels under the plot area.
 */
function waitAxis(values, { L, T, pw, ph, across = false }) {
  const finite = values.filter((v) => Number.isFinite(v) && v > 0);
  const lo = Math.pow(10, Math.floor(Math.log10(Math.max(1e-3, Math.min(...finite, 1)))));
  const hi = Math.pow(10, Math.ceil(Math.log10(Math.max(...finite, 10) * 1.05)));
  // How far along the axis a wait lies, 0 at lo and 1 at hi.
  const at = (v) => (Math.log10(Math.max(lo, v)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo));
  const ys = (v) => T + ph - at(v) * ph;
  const xs = (v) => L + at(v) * pw;
  const f = (x) => x.toFixed(1);
  const grid = [];
  for (let p = Math.log10(lo); p <= Math.log10(hi) + 1e-9; p++) {
    const v = Math.pow(10, p);
    const label = esc(tick(Number(v.toPrecision(1))));
    if (across) {
      const x = xs(v);
      grid.push(`<line x1="${f(x)}" y1="${T}" x2="${f(x)}" y2="${T + ph}" stroke="#e3e3e3"/>`);
      grid.push(`<text x="${f(x)}" y="${T + ph + 16}" text-anchor="middle">${label}</text>`);
    } else {
      const y = ys(v);
      grid.push(`<line x1="${L}" y1="${f(y)}" x2="${L + pw}" y2="${f(y)}" stroke="#e3e3e3"/>`);
      grid.push(`<text x="${L - 8}" y="${f(y + 4)}" text-anchor="end">${label}</text>`);
    }
  }
  return { ys, xs, grid };
}

module.exports = { ms, esc, waitAxis };
