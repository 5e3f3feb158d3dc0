// The job view: one job as job() reports it (state, lane, attempts, progress, last error), looked
// up by id or opened from a dead letter. Its payload is not shown here (the dead letters show theirs).
import { get } from './api.js';
import { byId, clock, el, fill } from './dom.js';

const shown = (v) => (typeof v === 'number' ? String(v) : JSON.stringify(v));

/** Shows the job `id` of `queue`; `onError` gets a message when it cannot. */
export async function showJob(queue, id, onError) {
  const view = byId('job');
  byId('job-id').value = id;
  try {
    const job = await get('job', { queue, id });
    const rows = [
      ['Job', job.id], ['State', job.state], ['Lane', job.group], ['Attempt', `${job.attempt} of ${job.maxAttempts}`],
      ['Submitted', clock(job.submittedAt)],
      job.dueAt !== undefined ? ['Due', clock(job.dueAt)] : null,
      job.leaseUntil !== undefined ? ['Lease until', clock(job.leaseUntil)] : null,
      ['Progress', job.progress === undefined ? 'none reported' : shown(job.progress)],
      job.lastError !== undefined ? ['Last error', job.lastError] : null,
      job.finishedAt !== undefined ? ['Finished', clock(job.finishedAt)] : null,
    ].filter(Boolean);
    fill(view, ...rows.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: v, 'data-field': k.toLowerCase() })]));
    view.hidden = false;
  } catch (err) {
    view.hidden = true;
    onError(err.message);
  }
}

/** Wires the look-up form; `queue()` is the queue shown now. */
export function wireJobView(queue, onError) {
  byId('job-find').addEventListener('submit', (e) => {
    e.preventDefault();
    const id = byId('job-id').value.trim();
    if (id) showJob(queue(), id, onError);
  });
}
