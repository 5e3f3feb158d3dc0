'use strict';
// Small statistics helpers: medians with spread, percentiles, Jain's index.

function sorted(values) {
  return [...values].sort((a, b) => a - b);
}

function median(values) {
  if (values.length === 0) return NaN;
  const s = sorted(values);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Nearest-rank percentile, p in [0, 100]. */
function percentile(values, p) {
  if (values.length === 0) return NaN;
  const s = sorted(values);
  const rank = Math.max(1, Math.ceil((p / 100) * s.length));
  return s[Math.min(s.length, rank) - 1];
}

/** { median, min, max, values } of the rounds of one figure. */
function summarize(values) {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x));
  if (v.length === 0) return null;
  return { median: median(v), min: Math.min(...v), max: Math.max(...v), values: v };
}

/** Jain's fairness index of x: (Σx)² / (n·Σx²); 1 when all equal. */
function jain(xs) {
  const n = xs.length;
  let sum = 0;
  let sq = 0;
  for (const x of xs) {
    sum += x;
    sq += x * x;
  }
  return sq === 0 ? 1 : (sum * sum) / (n * sq);
}

module.exports = { median, percentile, summarize, jain };
