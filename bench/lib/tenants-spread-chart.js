'use strict';
const { ms, esc, waitAxis } = require('./wait-axis');
// The tenants-spread chart (results/tenants-spread.svg): one group per side (EchoMQ with tenants,
// the same lanes without, BullMQ's one line); in each, tenant A's and tenant B's wait (bar = p50,
// tick = p99, log scale, as in tenants.svg) and, under it, each tenant's share of the jobs served.
// Plain SVG, written here.

const COLORS = { a: '#8c8c8c', b: '#1f5fbf' };
const SIDES = [
  { key: 'tenants', label: 'EchoMQ, with tenants', sub: 'A’s 20 lanes share one turn' },
  { key: 'lanes', label: 'EchoMQ, same lanes, no tenants', sub: 'A holds 20 of 21 turns' },
  { key: 'bullmq', label: 'BullMQ (one FIFO line)', sub: 'no groups in open source' },
];

const pct = (x) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : '—');

/**
 * @param {object} chart { seconds, rate, capacity, concurrency, handlerMs, offer: { a, b }, aLanes,
 *   tenants, lanes, bullmq } where each side is one round ({ tenants: { a|b: { share, p50, p99 } }, handledPerSec }).
 */
function renderTenantsSpreadSvg(chart) {
  const W = 900;
  const H = 500;
  const L = 80;
  const R = 30;
  const T = 96;
  const B = 130;
  const pw = W - L - R;
  const ph = H - T - B;
  const values = [];
  for (const s of SIDES) for (const t of ['a', 'b']) values.push(chart[s.key].tenants[t].p50, chart[s.key].tenants[t].p99);
  const { ys, grid } = waitAxis(values, { L, T, pw, ph });
  const f = (x) => x.toFixed(1);
  const out = [...grid];
  const groupW = pw / SIDES.length;
  const barW = Math.min(60, groupW / 4);
  SIDES.forEach((s, si) => {
    const cx = L + groupW * (si + 0.5);
    ['a', 'b'].forEach((t, ti) => {
      const r = chart[s.key].tenants[t];
      const x = cx + (ti === 0 ? -1 : 1) * (barW / 2 + 8);
      const top = ys(r.p50);
      out.push(`<rect x="${f(x - barW / 2)}" y="${f(top)}" width="${f(barW)}" height="${f(T + ph - top)}" fill="${COLORS[t]}" fill-opacity="0.85"/>`);
      const y99 = ys(r.p99);
      out.push(`<line x1="${f(x)}" y1="${f(top)}" x2="${f(x)}" y2="${f(y99)}" stroke="#222" stroke-width="1.5"/>`);
      out.push(`<line x1="${f(x - barW / 3)}" y1="${f(y99)}" x2="${f(x + barW / 3)}" y2="${f(y99)}" stroke="#222" stroke-width="2"/>`);
      out.push(`<text x="${f(x)}" y="${T + ph + 16}" text-anchor="middle" font-size="11">p50 ${esc(ms(r.p50))}</text>`);
      out.push(`<text x="${f(x)}" y="${T + ph + 30}" text-anchor="middle" font-size="11">p99 ${esc(ms(r.p99))}</text>`);
    });
    const ten = chart[s.key].tenants;
    out.push(`<text x="${f(cx)}" y="${T + ph + 50}" text-anchor="middle" font-weight="bold">${esc(s.label)}</text>`);
    out.push(`<text x="${f(cx)}" y="${T + ph + 66}" text-anchor="middle" fill="#444">${esc(s.sub)}</text>`);
    out.push(`<text x="${f(cx)}" y="${T + ph + 84}" text-anchor="middle">served: A ${pct(ten.a.share)} · B ${pct(ten.b.share)}</text>`);
  });
  const rate = Math.round(chart.rate).toLocaleString('en-US');
  const cap = Math.round(chart.capacity).toLocaleString('en-US');
  const legendY = H - 16;
  return `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif" font-size="12">
  <title>A tenant that spreads a flood over ${chart.aLanes} lanes, beside a tenant with one lane</title>
  <rect width="${W}" height="${H}" fill="#ffffff"/>
  <text x="${L}" y="24" font-size="16" font-weight="bold">Spreading over more lanes buys no bigger share: tenant A’s ${chart.aLanes} lanes beside tenant B’s one</text>
  <text x="${L}" y="44" fill="#444">Wait from submit to handler: bar = p50, tick = p99 (log scale). One consumer, concurrency ${chart.concurrency}, handlers ${chart.handlerMs} ms (~${cap} jobs/s).</text>
  <text x="${L}" y="60" fill="#444">A offers ${chart.offer.a}× that over ${chart.aLanes} lanes, B ${chart.offer.b}× on one lane: ${rate} jobs/s for ${chart.seconds} s. Jobs still queued at the end count with their wait so far.</text>
  <text x="${L}" y="76" fill="#444">Handled: with tenants ${Math.round(chart.tenants.handledPerSec).toLocaleString('en-US')}/s, without ${Math.round(chart.lanes.handledPerSec).toLocaleString('en-US')}/s, BullMQ ${Math.round(chart.bullmq.handledPerSec).toLocaleString('en-US')}/s.</text>
  ${out.join('\n  ')}
  <line x1="${L}" y1="${T + ph}" x2="${L + pw}" y2="${T + ph}" stroke="#333"/>
  <line x1="${L}" y1="${T}" x2="${L}" y2="${T + ph}" stroke="#333"/>
  <text transform="translate(20 ${T + ph / 2}) rotate(-90)" text-anchor="middle">wait, submit → handler</text>
  <rect x="${L}" y="${legendY - 11}" width="14" height="14" fill="${COLORS.a}"/>
  <text x="${L + 20}" y="${legendY}">tenant A (the flood, ${chart.aLanes} lanes)</text>
  <rect x="${L + 260}" y="${legendY - 11}" width="14" height="14" fill="${COLORS.b}"/>
  <text x="${L + 280}" y="${legendY}">tenant B (one lane)</text>
</svg>
`;
}

module.exports = { renderTenantsSpreadSvg };
