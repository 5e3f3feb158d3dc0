'use strict';
// Rows of the results table, and the files written from them: latest.md, latest.json, skew.svg.
const { summarize } = require('./stats');

/**
 * One row: the rounds of a figure on each side, summarised (median, min–max), the ratio of the
 * medians (EchoMQ ÷ BullMQ, or ÷ a reference figure of its own), and the target, if any, checked.
 */
function makeRow(spec) {
  const row = {
    scenario: spec.scenario,
    metric: spec.metric,
    unit: spec.unit || '',
    better: spec.better || null,
    digits: spec.digits ?? 0,
    echomq: spec.echomq ? summarize(spec.echomq) : null,
    bullmq: spec.bullmq ? summarize(spec.bullmq) : null,
    bullmqNote: spec.bullmqNote || null,
    ratio: null,
    ratioOf: null,
    target: spec.target ? spec.target.text : null,
    met: null,
  };
  if (spec.ratioTo) {
    const ref = summarize(spec.ratioTo.values);
    if (row.echomq && ref && ref.median !== 0) {
      row.ratio = row.echomq.median / ref.median;
      row.ratioOf = spec.ratioTo.label;
    }
  } else if (row.echomq && row.bullmq && row.bullmq.median !== 0) {
    row.ratio = row.echomq.median / row.bullmq.median;
    row.ratioOf = 'BullMQ';
  }
  if (spec.target && row.echomq) {
    try {
      row.met = Boolean(spec.target.check(row));
    } catch {
      row.met = false;
    }
  }
  return row;
}

function num(x, digits) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '—';
  return x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function figure(s, digits) {
  if (!s) return '—';
  if (s.values.length === 1 || s.min === s.max) return num(s.median, digits);
  return `${num(s.median, digits)} (${num(s.min, digits)}–${num(s.max, digits)})`;
}

function ratioText(row) {
  if (row.ratio === null) return '—';
  const r = row.ratio >= 100 ? num(row.ratio, 0) : row.ratio >= 10 ? num(row.ratio, 1) : num(row.ratio, 2);
  return row.ratioOf === 'BullMQ' ? `${r}×` : `${r}× of ${row.ratioOf}`;
}

const esc = (s) => String(s).replace(/\|/g, '\\|');

function markdownTable(rows) {
  const lines = [
    '| scenario | metric | EchoMQ | BullMQ | ratio | target | met? |',
    '| --- | --- | ---: | ---: | ---: | --- | :---: |',
  ];
  for (const r of rows) {
    const met = r.met === null ? '' : r.met ? '✅ met' : '❌ not met';
    lines.push(`| ${esc(r.scenario)} | ${esc(r.metric)} | ${figure(r.echomq, r.digits)} | ${r.bullmq ? figure(r.bullmq, r.digits) : r.bullmqNote || '—'} | ${ratioText(r)} | ${esc(r.target || '')} | ${met} |`);
  }
  return lines.join('\n');
}

function breakdownTable(b) {
  if (!b) return '';
  const names = {
    echomqSubmitMany: 'EchoMQ submitMany (500 jobs per script)',
    echomqClaimMany25: 'EchoMQ claimMany(25), claims only',
    echomqClaimSingle: 'EchoMQ claim, one job per script',
    echomqComplete: 'EchoMQ complete, one per script',
    bullmqAddBulk: 'BullMQ addBulk (one addStandardJob script per job)',
    bullmqWorkerDrain: 'BullMQ Worker drain (moveToFinished + fetch next)',
  };
  const lines = [
    '| phase | scripts | µs per script | script µs per job | Redis CPU µs per job | redis.call()s per job |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const [k, v] of Object.entries(b)) {
    lines.push(`| ${names[k] || k} | ${num(v.calls, 0)} | ${num(v.usPerCall, 1)} | ${num(v.scriptUsPerJob, 1)} | ${num(v.redisCpuUsPerJob, 1)} | ${num(v.redisCallsPerJob, 1)} |`);
  }
  return lines.join('\n');
}

function targetsSummary(rows) {
  const withTarget = rows.filter((r) => r.met !== null);
  const met = withTarget.filter((r) => r.met);
  return { met: met.length, total: withTarget.length, missed: withTarget.filter((r) => !r.met).map((r) => `${r.scenario}: ${r.metric}`) };
}

function renderMarkdown(results) {
  const m = results.meta;
  const t = targetsSummary(results.rows);
  const out = [];
  out.push(`# EchoMQ vs BullMQ — ${m.mode === 'smoke' ? 'smoke run (tiny sizes, timings meaningless)' : 'benchmark results'}`);
  out.push('');
  out.push(`Generated ${m.finishedAt} by \`${m.command}\` in ${num(m.durationS, 0)} s. ${m.rounds} round(s) per figure: median (min–max).`);
  out.push(`Node ${m.node}, ${m.redis}, ${m.cpus} × ${m.cpuModel}, ${num(m.memGb, 0)} GB. BullMQ ${m.bullmq}. EchoMQ consumer: ${m.consumer}.`);
  out.push(`Load average (1 min) at start ${m.loadStart[0]}, at end ${m.loadEnd[0]}${m.loadStart[0] > 1 || m.loadEnd[0] > 1 ? ' — other processes shared the machine during the run, so wall-clock figures carry that noise; the CPU-per-job figures are less affected' : ''}.`);
  out.push('');
  out.push(`Ratio = EchoMQ ÷ BullMQ unless stated (for rates higher is better, for costs lower is better). Targets are reported, never asserted: **${t.met} of ${t.total} met**.`);
  out.push('');
  out.push(markdownTable(results.rows));
  out.push('');
  const b = results.scenarios.e2e && results.scenarios.e2e.details && results.scenarios.e2e.details.breakdown;
  if (b) {
    out.push('## Where the server time goes (one pass, INFO commandstats)');
    out.push('');
    out.push(breakdownTable(b));
    out.push('');
  }
  if (results.errors.length) {
    out.push('## Errors');
    out.push('');
    for (const e of results.errors) out.push(`- ${e.scenario}: ${e.message}`);
    out.push('');
  }
  return out.join('\n');
}

/** The skew chart: light jobs completed against completion rank (log scale), both engines. */
function renderSkewSvg(chart) {
  const W = 900;
  const H = 420;
  const L = 70;
  const R = 30;
  const T = 70;
  const B = 60;
  const pw = W - L - R;
  const ph = H - T - B;
  const xMaxLog = Math.log10(chart.total * 1.6);
  const xs = (rank) => L + (Math.log10(Math.max(1, rank)) / xMaxLog) * pw;
  const ys = (k) => T + ph - (k / chart.light) * ph;
  const f = (x) => x.toFixed(1);
  const step = (ranks) => {
    const pts = [`M ${f(xs(1))} ${f(ys(0))}`];
    ranks.forEach((r, i) => {
      pts.push(`H ${f(xs(r))}`);
      pts.push(`V ${f(ys(i + 1))}`);
    });
    pts.push(`H ${f(xs(chart.total))}`);
    return pts.join(' ');
  };
  const grid = [];
  for (let p = 0; Math.pow(10, p) <= chart.total * 1.6; p++) {
    const x = xs(Math.pow(10, p));
    grid.push(`<line x1="${f(x)}" y1="${T}" x2="${f(x)}" y2="${T + ph}" stroke="#e3e3e3"/>`);
    grid.push(`<text x="${f(x)}" y="${T + ph + 18}" text-anchor="middle">${Math.pow(10, p).toLocaleString('en-US')}</text>`);
  }
  for (let k = 0; k <= chart.light; k += chart.light / 4) {
    grid.push(`<line x1="${L}" y1="${f(ys(k))}" x2="${L + pw}" y2="${f(ys(k))}" stroke="#e3e3e3"/>`);
    grid.push(`<text x="${L - 8}" y="${f(ys(k) + 4)}" text-anchor="end">${k}</text>`);
  }
  const e = chart.echomq;
  const b = chart.bullmq;
  const target = xs(110);
  const ms = (x) => `${x.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })} ms`;
  // The legend sits between the two curves: right of the target line, left of BullMQ's rise.
  const bx = Math.round(xs(110) + 14);
  const bw = Math.max(200, Math.round(xs(chart.total) - 10 - bx));
  const by = T + 34;
  return `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif" font-size="12">
  <title>Skew: when do the light lanes' jobs complete?</title>
  <rect width="${W}" height="${H}" fill="#ffffff"/>
  <text x="${L}" y="24" font-size="16" font-weight="bold">Skew: ${chart.heavy.toLocaleString('en-US')} jobs in one lane, then ${chart.light} jobs over 10 light lanes</text>
  <text x="${L}" y="44" fill="#444">Light jobs completed against overall completion rank (log scale); one consumer, concurrency 50.</text>
  ${grid.join('\n  ')}
  <line x1="${L}" y1="${T + ph}" x2="${L + pw}" y2="${T + ph}" stroke="#333"/>
  <line x1="${L}" y1="${T}" x2="${L}" y2="${T + ph}" stroke="#333"/>
  <line x1="${f(target)}" y1="${T}" x2="${f(target)}" y2="${T + ph}" stroke="#2e7d32" stroke-dasharray="5,4"/>
  <text x="${f(target + 5)}" y="${T + 14}" fill="#2e7d32">target: all by rank 110</text>
  <path d="${step(b.lightRanks)}" fill="none" stroke="#e07b00" stroke-width="2.5"/>
  <path d="${step(e.lightRanks)}" fill="none" stroke="#1f5fbf" stroke-width="2.5"/>
  <text x="${L + pw / 2}" y="${H - 16}" text-anchor="middle">completion rank (1 = first job handled)</text>
  <text transform="translate(18 ${T + ph / 2}) rotate(-90)" text-anchor="middle">light jobs completed</text>
  <rect x="${bx}" y="${by}" width="${bw}" height="62" fill="#ffffff" stroke="#cccccc"/>
  <g font-size="11">
  <line x1="${bx + 10}" y1="${by + 20}" x2="${bx + 40}" y2="${by + 20}" stroke="#1f5fbf" stroke-width="2.5"/>
  <text x="${bx + 48}" y="${by + 24}">EchoMQ: ranks ${e.bestRank}–${e.worstRank}, waits ≤ ${ms(e.worstWaitMs)}</text>
  <line x1="${bx + 10}" y1="${by + 44}" x2="${bx + 40}" y2="${by + 44}" stroke="#e07b00" stroke-width="2.5"/>
  <text x="${bx + 48}" y="${by + 48}">BullMQ: ranks ${b.bestRank.toLocaleString('en-US')}–${b.worstRank.toLocaleString('en-US')}, waits ≤ ${ms(b.worstWaitMs)}</text>
  </g>
</svg>
`;
}

module.exports = { makeRow, renderMarkdown, renderSkewSvg, markdownTable, targetsSummary, figure };
