'use strict';
// The two consumers the scenarios drive: the bench's EchoMQ loop (echo-consumer.js) and a BullMQ
// Worker, behind one shape: start → { stop(), ...counters }, with onHandled/onAck hooks.
const { startConsumer } = require('./echo-consumer');
const { echoLanes, bullWorker } = require('./engines');

/**
 * An EchoMQ consumer on connections of its own: one per claim stream (two), plus one for its
 * blocking wait. handler(job) runs for every job; onDone(job) after its ack is confirmed. With
 * `weighted` it is the library's @Weighted() loop (weighted turns, wclaimMany); with `library`, the
 * library's plain loop whatever --consumer says.
 */
function echoConsumer(server, queue, { concurrency, handler, onDone, idleBlockMs, onError, weighted = false, library = false }) {
  const clients = [server.client(), server.client()];
  const pool = clients.map((c) => echoLanes(c));
  const lanes = pool[0];
  const consumer = startConsumer({
    lanes,
    pool,
    queue,
    concurrency,
    handler,
    blockClient: server.client(),
    idleBlockMs,
    weighted,
    library,
    onAck: (job, outcome) => {
      if (outcome === 'completed' && onDone) onDone(job);
    },
    onError,
  });
  return {
    consumer,
    lanes,
    async stop() {
      try {
        await consumer.stop();
      } finally {
        await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
      }
    },
  };
}

/** A BullMQ Worker with the same hooks (onDone on its 'completed' event). */
function bullConsumer(server, queue, { concurrency, handler, onDone, onError, workerOpts = {} }) {
  const worker = bullWorker(server, queue, async (job) => handler(job), { concurrency, ...workerOpts });
  if (onDone) worker.on('completed', (job) => onDone(job));
  worker.on('error', (err) => onError && onError(err));
  worker.on('failed', (job, err) => onError && onError(err || new Error(`job ${job && job.id} failed`)));
  return {
    worker,
    async stop() {
      await worker.close();
    },
  };
}

module.exports = { echoConsumer, bullConsumer };
