'use strict';
// Filling queues in batches: submitMany on the EchoMQ side, addBulk on the BullMQ side, with the
// same payloads in the same order.
const { payload } = require('./measure');

/**
 * Sends `count` items in batches of `batch`, `inFlight` sends at once; item i is makeItem(start + i)
 * and send(items) resolves to their ids. Returns the ids in order when keepIds.
 */
async function fillInBatches(count, makeItem, send, { batch = 1000, inFlight = 1, keepIds = false, start = 0 } = {}) {
  const ids = keepIds ? new Array(count) : null;
  let next = 0;
  async function worker() {
    while (next < count) {
      const from = next;
      const to = Math.min(count, from + batch);
      next = to;
      const items = new Array(to - from);
      for (let i = from; i < to; i++) items[i - from] = makeItem(start + i);
      const got = await send(items);
      if (ids) for (let i = 0; i < got.length; i++) ids[from + i] = got[i];
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker));
  return ids;
}

/** Submits `count` jobs, job i into lane laneOf(i), with submitMany. Returns the ids when keepIds. */
function echoFill(lanes, queue, count, laneOf, options) {
  return fillInBatches(count, (i) => ({ group: laneOf(i), payload: payload(i, laneOf(i)) }),
    (items) => lanes.submitMany(queue, items), options);
}

/** The same for a BullMQ queue: addBulk of jobs named 'job'. Returns the ids when keepIds. */
function bullFill(queue, count, laneOf, options) {
  return fillInBatches(count, (i) => ({ name: 'job', data: payload(i, laneOf(i)) }),
    async (items) => (await queue.addBulk(items)).map((job) => job.id), options);
}

module.exports = { echoFill, bullFill };
