'use strict';
// How the bench builds each side: a LanesService straight on an ioredis client (as the library's
// own tests do), and BullMQ's Queue and Worker on the same server.
const { LanesService } = require('../../dist');
const { resolveEchoMqOptions } = require('../../dist/echomq.options');

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined, verbose: () => undefined };

/** A LanesService on `client` (the caller owns and quits the client). */
function echoLanes(client, options = {}) {
  return new LanesService(client, resolveEchoMqOptions({ logger: quiet, ...options }));
}

let bullmq = null;
function bull() {
  if (!bullmq) bullmq = require('bullmq');
  return bullmq;
}

/** Default job options on the BullMQ side: a completed job leaves nothing behind, like EchoMQ's. */
const BULL_JOB_OPTS = { removeOnComplete: true };

function bullQueue(server, name, opts = {}) {
  const { Queue } = bull();
  return new Queue(name, { connection: server.connection, defaultJobOptions: BULL_JOB_OPTS, ...opts });
}

function bullWorker(server, name, processor, opts = {}) {
  const { Worker } = bull();
  return new Worker(name, processor, { connection: server.connection, ...opts });
}

module.exports = { echoLanes, bullQueue, bullWorker, BULL_JOB_OPTS };
