'use strict';
const { ms, esc, waitAxis } = require('./wait-axis');
// The tenants chart (results/tenants.svg): wait by tenant size, EchoMQ beside BullMQ. One group of
// bars per tenant size; each bar is the median wait (p50), its tick the p99; the wait axis is
// logarithmic, because one side waits milliseconds and the other seconds. Plain SVG, written here.

const COLORS = { echomq: '#1f5fbf', bullmq: '#e07b00' };
const NAMES = { echomq: 'EchoMQ (a lane per tenant)', bullmq: 'BullMQ 6.7 (one FIFO: no groups in open source)' };

/**
 * @param {object} chart { seconds, rate, capacity, tenants, concurrency, handlerMs, groups: [{ key,
 *   label, share }], echomq, bullmq } where echomq/bullmq are one round's results ({ groups: { key:
 *   { p50, p99, jobs, waiting } }, handledPerSec }).
 */
function renderTenantsSvg(chart) {
  const W = 900;
  const H = 480;
  const L = 80;
  const R = 30;
  const T = 96;
  const B = 110;
  const pw = W - L - R;
  const ph = H - T - B;
  const engines = ['echomq', 'bullmq'];
  const values = [];
  for (const e of engines) for (const g of chart.groups) values.push(chart[e].groups[g.key].p50, chart[e].groups[g.key].p99);
  const { ys, grid } = waitAxis(values, { L, T, pw, ph });
  const f = (x) => x.toFixed(1);
  const out = [...grid];
  const groupW = pw / chart.groups.length;
  const barW = Math.min(70, groupW / 4);
  chart.groups.forEach((g, gi) => {
    const cx = L + groupW * (gi + 0.5);
    engines.forEach((e, ei) => {
      const r = chart[e].groups[g.key];
      const x = cx + (ei === 0 ? -1 : 1) * (barW / 2 + 8);
      const top = ys(r.p50);
      out.push(`<rect x="${f(x - barW / 2)}" y="${f(top)}" width="${f(barW)}" height="${f(T + ph - top)}" fill="${COLORS[e]}" fill-opacity="0.85"/>`);
      const y99 = ys(r.p99);
      out.push(`<line x1="${f(x)}" y1="${f(top)}" x2="${f(x)}" y2="${f(y99)}" stroke="#222" stroke-width="1.5"/>`);
      out.push(`<line x1="${f(x - barW / 3)}" y1="${f(y99)}" x2="${f(x + barW / 3)}" y2="${f(y99)}" stroke="#222" stroke-width="2"/>`);
      out.push(`<text x="${f(x)}" y="${T + ph + 16}" text-anchor="middle" font-size="11">p50 ${esc(ms(r.p50))}</text>`);
      out.push(`<text x="${f(x)}" y="${T + ph + 30}" text-anchor="middle" font-size="11">p99 ${esc(ms(r.p99))}</text>`);
    });
    out.push(`<text x="${f(cx)}" y="${T + ph + 52}" text-anchor="middle" font-weight="bold">${esc(g.label)}</text>`);
    out.push(`<text x="${f(cx)}" y="${T + ph + 68}" text-anchor="middle" fill="#444">${Math.round(g.share * 100)}% of all jobs</text>`);
  });
  const e = chart.echomq;
  const b = chart.bullmq;
  const rate = Math.round(chart.rate).toLocaleString('en-US');
  const cap = Math.round(chart.capacity).toLocaleString('en-US');
  const legendY = H - 22;
  return `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif" font-size="12">
  <title>Wait by tenant size: ${chart.tenants} tenants, the biggest sends half of all jobs</title>
  <rect width="${W}" height="${H}" fill="#ffffff"/>
  <text x="${L}" y="24" font-size="16" font-weight="bold">How long each tenant waits: ${chart.tenants} tenants, the biggest sends half of all jobs</text>
  <text x="${L}" y="44" fill="#444">Wait from submit to handler: bar = p50, tick = p99 (log scale). One consumer, concurrency ${chart.concurrency}, handlers ${chart.handlerMs[0]}–${chart.handlerMs[1]} ms;</text>
  <text x="${L}" y="60" fill="#444">${rate} jobs/s offered for ${chart.seconds} s against ~${cap}/s of capacity. Jobs still queued at the end count with their wait so far.</text>
  <text x="${L}" y="76" fill="#444">Handled: EchoMQ ${Math.round(e.handledPerSec).toLocaleString('en-US')}/s, BullMQ ${Math.round(b.handledPerSec).toLocaleString('en-US')}/s; still queued at the end: EchoMQ ${e.waiting.toLocaleString('en-US')}, BullMQ ${b.waiting.toLocaleString('en-US')}.</text>
  ${out.join('\n  ')}
  <line x1="${L}" y1="${T + ph}" x2="${L + pw}" y2="${T + ph}" stroke="#333"/>
  <line x1="${L}" y1="${T}" x2="${L}" y2="${T + ph}" stroke="#333"/>
  <text transform="translate(20 ${T + ph / 2}) rotate(-90)" text-anchor="middle">wait, submit → handler</text>
  <rect x="${L}" y="${legendY - 11}" width="14" height="14" fill="${COLORS.echomq}"/>
  <text x="${L + 20}" y="${legendY}">${esc(NAMES.echomq)}</text>
  <rect x="${L + 260}" y="${legendY - 11}" width="14" height="14" fill="${COLORS.bullmq}"/>
  <text x="${L + 280}" y="${legendY}">${esc(NAMES.bullmq)}</text>
</svg>
`;
}

module.exports = { renderTenantsSvg };
