'use strict';
// Filling queues in batches: submitMany on the EchoMQ side, addBulk on the BullMQ side, with the
// same payloads in the same order.
const { payload } = require('./measure');

/**
 * Submits `count` jobs, job i into lane laneOf(i), `batch` per submitMany call, `inFlight` calls
 * at once. Returns the ids in submit order when keepIds.
 */
async function echoFill(lanes, queue, count, laneOf, { batch = 1000, inFlight = 1, keepIds = false, start = 0 } = {}) {
  const ids = keepIds ? new Array(count) : null;
  let next = 0;
  async function worker() {
    while (next < count) {
      const from = next;
      const to = Math.min(count, from + batch);
      next = to;
      const items = new Array(to - from);
      for (let i = from; i < to; i++) {
        const lane = laneOf(start + i);
        items[i - from] = { group: lane, payload: payload(start + i, lane) };
      }
      const got = await lanes.submitMany(queue, items);
      if (ids) for (let i = 0; i < got.length; i++) ids[from + i] = got[i];
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker));
  return ids;
}

/** The same for a BullMQ queue: addBulk of `batch` jobs named 'job'. Returns the ids when keepIds. */
async function bullFill(queue, count, laneOf, { batch = 1000, inFlight = 1, keepIds = false, start = 0 } = {}) {
  const ids = keepIds ? new Array(count) : null;
  let next = 0;
  async function worker() {
    while (next < count) {
      const from = next;
      const to = Math.min(count, from + batch);
      next = to;
      const items = new Array(to - from);
      for (let i = from; i < to; i++) items[i - from] = { name: 'job', data: payload(start + i, laneOf(start + i)) };
      const jobs = await queue.addBulk(items);
      if (ids) for (let i = 0; i < jobs.length; i++) ids[from + i] = jobs[i].id;
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker));
  return ids;
}

module.exports = { echoFill, bullFill };
