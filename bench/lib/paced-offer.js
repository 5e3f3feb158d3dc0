'use strict';
// The producer the paced scenarios share (tenants, tenants-spread, costly): an open-loop offer, so a
// slow engine meets the same arrivals as a fast one instead of being sent less.
const { sleep } = require('./measure');
const { echoLanes, bullQueue } = require('./engines');
const { echoConsumer, bullConsumer } = require('./consumers');

/**
 * Every `tickMs`, submits the jobs due by now (rate × elapsed, at most `count`) in one `send(batch)`
 * of `item(i)`, for `seconds`, while `consumer` runs; then stops it. `window.end` (Infinity until
 * then) is when the offer ended: handlers read it to count only what started inside the window.
 * The first of `errors` (filled by the consumer) is thrown. Returns how many were sent, when each
 * was (`submitted[i]`, performance.now()), and the window's start and end.
 */
async function pacedOffer({ rate, seconds, count, item, send, consumer, errors, window, tickMs = 10 }) {
  const submitted = new Float64Array(count).fill(NaN);
  let sent = 0;
  const t0 = performance.now();
  try {
    for (;;) {
      const now = performance.now();
      const elapsed = (now - t0) / 1000;
      if (elapsed >= seconds) break;
      const due = Math.min(count, Math.floor(rate * elapsed));
      if (due > sent) {
        const batch = [];
        for (let i = sent; i < due; i++) {
          submitted[i] = now;
          batch.push(item(i));
        }
        sent = due;
        await send(batch);
      }
      if (errors.length) throw errors[0];
      await sleep(tickMs);
    }
    window.end = performance.now();
  } finally {
    if (window.end === Infinity) window.end = performance.now();
    await consumer.stop();
  }
  if (errors.length) throw errors[0];
  return { sent, submitted, t0, tEnd: window.end };
}



/**
 * One EchoMQ side of a paced scenario, as an alternator run: a client of its own, `setUp(lanes)`
 * first (the alternator has just flushed the database), then `round(send, startConsumer)` with the
 * jobs submitted as `item(p)` and the library's claim loop at `concurrency` calling `handler(n)`.
 */
function echoPacedSide(ctx, queue, concurrency, { setUp, item }, round) {
  return async () => {
    const client = ctx.server.client();
    try {
      const lanes = echoLanes(client);
      if (setUp) await setUp(lanes);
      return await round((batch) => lanes.submitMany(queue, batch.map(item)),
        (handler, onError) => echoConsumer(ctx.server, queue, { concurrency, handler: (job) => handler(job.payload.n), onError }));
    } finally {
      await client.quit();
    }
  };
}

/** The BullMQ side of a paced scenario: its one FIFO line, the job riding in the data, a Worker at `concurrency`. */
function bullPacedSide(ctx, queueName, concurrency, round) {
  return async () => {
    const queue = bullQueue(ctx.server, queueName);
    try {
      await queue.waitUntilReady();
      return await round((batch) => queue.addBulk(batch.map((p) => ({ name: 'job', data: p }))),
        (handler, onError) => bullConsumer(ctx.server, queueName, { concurrency, handler: (job) => handler(job.data.n), onError }));
    } finally {
      await queue.close();
    }
  };
}

module.exports = { pacedOffer, echoPacedSide, bullPacedSide };
