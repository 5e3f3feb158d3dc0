'use strict';
const { ms, esc, waitAxis } = require('./wait-axis');
// The costly chart (results/costly.svg): one row per side (EchoMQ by 'jobs', 'cost', 'time', BullMQ's
// one line). On the left, a stacked bar of the handler time the two tenants got, with the fair 50%
// marked, and their shares of the jobs under it; on the right, the light tenant's wait (bar = p50,
// tick = p99) on the log-scale wait axis the tenant charts share. Plain SVG, written here.

const COLORS = { heavy: '#b4b4b4', light: '#1f5fbf', fair: '#2e7d32' };
const SIDES = [
  { key: 'jobs', label: "EchoMQ, by: 'jobs'", sub: 'one job a turn' },
  { key: 'cost', label: "EchoMQ, by: 'cost'", sub: 'a turn charged its declared cost' },
  { key: 'time', label: "EchoMQ, by: 'time'", sub: 'a turn charged claim → ack time' },
  { key: 'bullmq', label: 'BullMQ (one FIFO line)', sub: 'no groups in open source' },
];

const pct = (x) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : '—');

/**
 * @param {object} chart { seconds, rate, concurrency, handlerMs: { heavy, light }, cost, offer,
 *   heavyLanes, sides: { jobs|cost|time|bullmq } } where each side is one round ({ tenants: {
 *   heavy|light: { timeShare, share, p50, p99 } }, handledPerSec }).
 */
function renderCostlySvg(chart) {
  const W = 1000;
  const H = 470;
  const T = 112;
  const rowH = 72;
  const ph = rowH * SIDES.length;
  const share = { L: 230, pw: 360 };
  const wait = { L: 650, pw: 300 };
  const fairX = share.L + share.pw / 2;
  const f = (x) => x.toFixed(1);
  const values = [];
  for (const s of SIDES) values.push(chart.sides[s.key].tenants.light.p50, chart.sides[s.key].tenants.light.p99);
  const { xs, grid } = waitAxis(values, { L: wait.L, T, pw: wait.pw, ph, across: true });
  const out = [...grid];
  SIDES.forEach((s, si) => {
    const side = chart.sides[s.key];
    const ten = side.tenants;
    const cy = T + rowH * (si + 0.5);
    if (si > 0) out.push(`<line x1="20" y1="${T + rowH * si}" x2="${W - 20}" y2="${T + rowH * si}" stroke="#f0f0f0"/>`);
    out.push(`<text x="20" y="${f(cy - 10)}" font-weight="bold" font-size="13">${esc(s.label)}</text>`);
    out.push(`<text x="20" y="${f(cy + 6)}" fill="#444">${esc(s.sub)}</text>`);
    out.push(`<text x="20" y="${f(cy + 22)}" fill="#444" font-size="11">${esc(Math.round(side.handledPerSec).toLocaleString('en-US'))} jobs/s handled</text>`);

    // Share of handler time: light from the left, heavy the rest.
    const light = Number.isFinite(ten.light.timeShare) ? ten.light.timeShare : 0;
    const lw = share.pw * light;
    const by = cy - 22;
    const bh = 24;
    out.push(`<rect x="${share.L}" y="${f(by)}" width="${f(lw)}" height="${bh}" fill="${COLORS.light}"/>`);
    out.push(`<rect x="${f(share.L + lw)}" y="${f(by)}" width="${f(share.pw - lw)}" height="${bh}" fill="${COLORS.heavy}"/>`);
    // The light label sits inside its bar when it fits, else on the heavy bar just after it.
    const inside = lw >= 52;
    out.push(`<text x="${f(inside ? share.L + 6 : share.L + lw + 6)}" y="${f(by + 17)}" fill="${inside ? '#ffffff' : COLORS.light}" font-weight="bold">${esc(pct(ten.light.timeShare))}</text>`);
    out.push(`<text x="${share.L + share.pw - 6}" y="${f(by + 17)}" text-anchor="end" fill="#222" font-weight="bold">${esc(pct(ten.heavy.timeShare))}</text>`);
    // The fair line across the bar only, so it never runs through the text under it.
    out.push(`<line x1="${f(fairX)}" y1="${f(by - 5)}" x2="${f(fairX)}" y2="${f(by + bh + 5)}" stroke="${COLORS.fair}" stroke-width="2" stroke-dasharray="4,3"/>`);
    out.push(`<text x="${share.L}" y="${f(cy + 18)}" font-size="11" fill="#444">jobs served: light ${esc(pct(ten.light.share))} · heavy ${esc(pct(ten.heavy.share))}</text>`);

    // The light tenant's wait: bar to the p50, whisker and tick at the p99.
    const x50 = xs(ten.light.p50);
    const x99 = xs(ten.light.p99);
    out.push(`<rect x="${wait.L}" y="${f(cy - 20)}" width="${f(Math.max(0, x50 - wait.L))}" height="16" fill="${COLORS.light}" fill-opacity="0.85"/>`);
    out.push(`<line x1="${f(x50)}" y1="${f(cy - 12)}" x2="${f(x99)}" y2="${f(cy - 12)}" stroke="#222" stroke-width="1.5"/>`);
    out.push(`<line x1="${f(x99)}" y1="${f(cy - 22)}" x2="${f(x99)}" y2="${f(cy - 2)}" stroke="#222" stroke-width="2"/>`);
    out.push(`<text x="${wait.L + 6}" y="${f(cy + 18)}" font-size="11" fill="#444">p50 ${esc(ms(ten.light.p50))} · p99 ${esc(ms(ten.light.p99))}</text>`);
  });
  const rate = Math.round(chart.rate).toLocaleString('en-US');
  const h = chart.handlerMs;
  const caption = `One consumer, concurrency ${chart.concurrency}, ${chart.seconds} s per side. Tenant heavy: ${h.heavy} ms handlers over ${chart.heavyLanes} lanes, offering ${chart.offer.heavy}× the consumer’s capacity; light: ${h.light} ms on one lane, ${chart.offer.light}× (${rate} jobs/s in all).`;
  const legendY = H - 16;
  return `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif" font-size="12">
  <title>Fairness by jobs, cost and time: a tenant of ${esc(h.heavy)} ms jobs beside one of ${esc(h.light)} ms jobs</title>
  <rect width="${W}" height="${H}" fill="#ffffff"/>
  <text x="20" y="26" font-size="16" font-weight="bold">Counting turns or work: a tenant of ${esc(h.heavy)} ms jobs beside a tenant of ${esc(h.light)} ms jobs</text>
  <text x="20" y="48" fill="#444">${esc(caption)}</text>
  <text x="${share.L}" y="${T - 32}" font-weight="bold">share of handler time</text>
  <text x="${wait.L}" y="${T - 32}" font-weight="bold">light tenant’s wait, submit → handler (log scale)</text>
  <text x="${wait.L}" y="${T - 12}" fill="#444" font-size="11">bar = p50, tick = p99; a job queued at the end: its wait so far</text>
  ${out.join('\n  ')}
  <text x="${f(fairX)}" y="${T - 12}" text-anchor="middle" fill="${COLORS.fair}">fair in time: 50%</text>
  <line x1="${wait.L}" y1="${T}" x2="${wait.L}" y2="${T + ph}" stroke="#333"/>
  <line x1="${wait.L}" y1="${T + ph}" x2="${wait.L + wait.pw}" y2="${T + ph}" stroke="#333"/>
  <rect x="20" y="${legendY - 11}" width="14" height="14" fill="${COLORS.heavy}"/>
  <text x="40" y="${legendY}">tenant heavy (${esc(h.heavy)} ms, ${esc(chart.heavyLanes)} lanes; cost ${esc(chart.cost.heavy)} when declared)</text>
  <rect x="360" y="${legendY - 11}" width="14" height="14" fill="${COLORS.light}"/>
  <text x="380" y="${legendY}">tenant light (${esc(h.light)} ms, one lane; cost ${esc(chart.cost.light)})</text>
</svg>
`;
}

module.exports = { renderCostlySvg };
