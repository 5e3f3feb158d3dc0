'use strict';
// The EchoMQ consumers of the bench. By default the scenarios run the library's own claim loop
// (lib/runner/claim-loop, what an application gets); `--consumer=bench` runs the loop below instead,
// written on LanesService alone with two claim streams in flight, to show what the engine allows.
// Both go through startConsumer() at the end of this file (same options, same { stop(), stats }).
//
// How it works:
// - slots: at most `concurrency` jobs are leased to this consumer at once (running handlers plus
//   jobs asked for by claims still in flight), so it never holds more than a worker of that
//   concurrency would;
// - claims: claimMany(queue, free slots) — one round trip for the whole batch. Up to two claims may
//   be in flight, each for at most half the slots, each on its own connection (`pool`), so that
//   Redis works on one batch while Node runs the handlers of the other; with a single outstanding
//   claim the two sides would take turns idling;
// - acks: complete on return, fail on throw, sent at once without waiting for the reply (pipelined)
//   on the connection the job was claimed on, followed by the claim that refills the freed slots.
//   The connections do not use ioredis auto-pipelining: it holds a connection's next batch until
//   every reply of the previous one is in, which puts two claim streams in lockstep;
// - claim replies are handled one per turn of the event loop (see deliver());
// - idle: when a claim finds nothing and nothing else is in flight, block on the wake list
//   (BRPOP emq:{q}:wake, timeout idleBlockMs, shorter when a scheduled job falls due earlier) on
//   the consumer's own connection; a timeout reaps expired leases, then it claims again.

/** ms until the earliest scheduled job falls due, -1 when none (claimMany's dueInMs; older builds returned nextDue). */
function dueInMsOf(reply) {
  if (typeof reply.dueInMs === 'number') return reply.dueInMs;
  if (typeof reply.nextDue === 'number' && reply.nextDue >= 0) return Math.max(0, reply.nextDue - Date.now());
  return -1;
}

/**
 * @param {object} o
 * @param {import('../../dist').LanesService} o.lanes    the service (reaps and the default connection)
 * @param {import('../../dist').LanesService[]} [o.pool] one service per claim stream, each on its own
 *                                                        connection; claims take turns over them
 * @param {string} o.queue
 * @param {number} o.concurrency                          handlers running at once
 * @param {(job) => unknown} o.handler                    return → complete, throw → fail
 * @param {import('ioredis').Redis} o.blockClient         a dedicated connection for BRPOP; the consumer closes it
 * @param {number} [o.idleBlockMs=5000]
 * @param {number} [o.leaseMs]
 * @param {number} [o.claimsInFlight=2]                   claims outstanding at once, at most
 * @param {(job, outcome: string) => void} [o.onAck]     after the ack reply: 'completed' | 'stale' | 'retry' | 'dead'
 * @param {(err) => void} [o.onError]
 * @returns {{ stop(): Promise<void>, stats: object, running: number, error: Error|null }}
 */
function startEchoConsumer(o) {
  const { lanes, queue, concurrency, handler, blockClient } = o;
  const idleBlockMs = o.idleBlockMs ?? 5000;
  const maxClaims = Math.max(1, o.claimsInFlight ?? 2);
  const maxBatch = Math.max(1, Math.ceil(concurrency / maxClaims));
  const claimOpts = o.leaseMs ? { leaseMs: o.leaseMs } : undefined;
  const wakeKey = lanes.keysOf(queue).wake;
  const onAck = o.onAck ?? (() => undefined);
  const stats = { claimCalls: 0, emptyClaims: 0, claimed: 0, completed: 0, failed: 0, stale: 0, wakes: 0, timeouts: 0, reaped: 0, errors: 0 };

  let stopping = false;
  let running = 0; // handlers running
  let requested = 0; // slots asked for by claims in flight
  let claims = 0; // claims in flight
  let blocked = false; // a BRPOP is outstanding
  let backlog = false; // the last claim came back full
  let pumpQueued = false;
  let firstError = null;
  const acks = new Set();
  let settle = null; // resolves stop() once nothing is in flight
  let stopped = null;

  const onError = (err) => {
    stats.errors += 1;
    if (!firstError) firstError = err;
    if (o.onError) o.onError(err);
  };

  const idle = () => running === 0 && claims === 0 && acks.size === 0 && !blocked;
  const checkSettled = () => {
    if (stopping && settle && idle()) settle();
  };

  /** Coalesces the slots freed in one burst into one claim: runs once after the current tick. */
  function schedulePump() {
    if (pumpQueued || stopping) return;
    pumpQueued = true;
    process.nextTick(() => {
      pumpQueued = false;
      pump();
    });
  }

  function pump() {
    while (!stopping && claims < maxClaims) {
      const free = concurrency - running - requested;
      if (free <= 0) return;
      // A second claim only while there is a backlog (the last claim came back full) and for a
      // worthwhile batch; an idle consumer that wakes sends one claim.
      if (claims > 0 && (!backlog || free < Math.min(maxBatch, 8))) return;
      claim(Math.min(free, maxBatch));
    }
  }

  const pool = o.pool && o.pool.length ? o.pool : [lanes];
  let nextConn = 0;
  function claim(n) {
    claims += 1;
    requested += n;
    stats.claimCalls += 1;
    const via = pool[nextConn++ % pool.length];
    via.claimMany(queue, n, claimOpts).then(
      (reply) => deliver(() => served(n, reply, via)),
      (err) => deliver(() => {
        claims -= 1;
        requested -= n;
        onError(err);
        checkSettled();
      }),
    );
  }

  // Claim replies are handled at most one per turn of the event loop. Replies that arrive together
  // resolve one microtask after the other; handled together, both batches' acks and refill claims
  // would reach Redis together and be answered together, and so on — the two streams would move in
  // lockstep, Node and Redis taking turns idling. One per turn, the first batch's commands are on
  // their way before the second is worked on, so Redis serves one batch while Node handles the other.
  const inbox = [];
  let turnTaken = false;
  function deliver(fn) {
    inbox.push(fn);
    if (!turnTaken) deliverNext();
  }
  function deliverNext() {
    turnTaken = true;
    inbox.shift()();
    setImmediate(() => {
      turnTaken = false;
      if (inbox.length > 0) deliverNext();
    });
  }

  function served(n, reply, via) {
    const { jobs } = reply;
    claims -= 1;
    requested -= n;
    backlog = jobs.length === n;
    stats.claimed += jobs.length;
    for (const job of jobs) start(job, via);
    if (jobs.length === 0) {
      stats.emptyClaims += 1;
      if (running === 0 && claims === 0 && !stopping) block(dueInMsOf(reply));
    } else if (jobs.length === n) {
      schedulePump();
    }
    checkSettled();
  }

  function block(dueInMs) {
    if (blocked) return;
    let ms = idleBlockMs;
    if (dueInMs >= 0) ms = Math.max(10, Math.min(ms, dueInMs));
    blocked = true;
    blockClient.brpop(wakeKey, (ms / 1000).toFixed(3)).then(
      async (r) => {
        if (r) stats.wakes += 1;
        else {
          stats.timeouts += 1;
          if (!stopping) stats.reaped += await lanes.reap(queue).catch((err) => (onError(err), 0));
        }
        blocked = false;
        if (!stopping) pump();
        checkSettled();
      },
      (err) => {
        blocked = false;
        if (!stopping) onError(err);
        checkSettled();
      },
    );
  }

  function release() {
    running -= 1;
    schedulePump();
  }

  function track(p) {
    acks.add(p);
    p.finally(() => {
      acks.delete(p);
      checkSettled();
    });
  }

  function start(job, via = lanes) {
    running += 1;
    Promise.resolve()
      .then(() => handler(job))
      .then(
        () => {
          // release() first: the refill claim it schedules (next tick) then follows this burst's acks.
          release();
          track(via.complete(queue, job.id, job.attempt).then((ok) => {
            if (ok) stats.completed += 1;
            else stats.stale += 1;
            onAck(job, ok ? 'completed' : 'stale');
          }, onError));
        },
        (err) => {
          release();
          track(via.fail(queue, job.id, job.attempt, err).then((outcome) => {
            stats.failed += 1;
            onAck(job, outcome);
          }, onError));
        },
      );
  }

  pump();

  return {
    stats,
    get running() {
      return running;
    },
    get error() {
      return firstError;
    },
    /** Stops claiming, lets running handlers and their acks finish, closes the blocking connection. */
    stop() {
      if (stopped) return stopped;
      stopping = true;
      stopped = new Promise((resolve) => {
        settle = resolve;
        // A BRPOP in progress ends with the connection; its rejection is expected.
        blockClient.disconnect();
        checkSettled();
      }).then(() => {
        if (firstError) throw firstError;
      });
      return stopped;
    },
  };
}


/**
 * The same interface on the library's own claim loop (dist/runner/claim-loop), for comparison:
 * `node bench/run.js --consumer=library`. Acks are observed by wrapping complete/fail on the
 * consumer's own LanesService instance (complete, completeMany, fail); claimsInFlight does not apply.
 */
function startLibraryConsumer(o) {
  let ClaimLoop;
  try {
    ({ ClaimLoop } = require('../../dist/runner/claim-loop'));
  } catch (err) {
    throw new Error(`--consumer=library needs dist/runner/claim-loop.js (${err.message})`);
  }
  const { lanes, queue, concurrency, handler, blockClient } = o;
  const onAck = o.onAck ?? (() => undefined);
  const stats = { completed: 0, failed: 0, stale: 0 };
  const complete = lanes.complete.bind(lanes);
  const fail = lanes.fail.bind(lanes);
  lanes.complete = async (q, id, token) => {
    const ok = await complete(q, id, token);
    if (ok) stats.completed += 1;
    else stats.stale += 1;
    onAck({ id }, ok ? 'completed' : 'stale');
    return ok;
  };
  const completeMany = lanes.completeMany.bind(lanes);
  lanes.completeMany = async (q, acks) => {
    const results = await completeMany(q, acks);
    results.forEach((ok, i) => {
      if (ok) stats.completed += 1;
      else stats.stale += 1;
      onAck({ id: acks[i].jobId }, ok ? 'completed' : 'stale');
    });
    return results;
  };
  lanes.fail = async (q, id, token, error, opts) => {
    const outcome = await fail(q, id, token, error, opts);
    stats.failed += 1;
    onAck({ id }, outcome);
    return outcome;
  };
  const errors = [];
  const logger = {
    log: () => undefined,
    warn: () => undefined,
    error: (msg) => {
      errors.push(new Error(String(msg)));
      if (o.onError) o.onError(errors[errors.length - 1]);
    },
  };
  const options = { ...lanes.settings, idleBlockMs: o.idleBlockMs ?? lanes.settings.idleBlockMs };
  const loop = new ClaimLoop(
    { name: 'BenchConsumer.handle', queue, concurrency, leaseMs: o.leaseMs, weighted: Boolean(o.weighted), handler },
    { lanes, blocking: blockClient, options, logger },
  );
  loop.start();
  return {
    stats,
    get running() {
      return loop.inFlight;
    },
    get error() {
      return errors[0] || null;
    },
    async stop() {
      await loop.stop(10000);
      if (errors.length) throw errors[0];
    },
  };
}

/**
 * The consumer the scenarios use: the library's claim loop, or the bench's own with
 * ECHOMQ_BENCH_CONSUMER=bench. A weighted consumer (`o.weighted`) is always the library's loop (the
 * bench's own loop has no weighted turns), and so is one started with `o.library`.
 */
function startConsumer(o) {
  const own = process.env.ECHOMQ_BENCH_CONSUMER === 'bench' && !o.weighted && !o.library;
  return own ? startEchoConsumer(o) : startLibraryConsumer(o);
}

module.exports = { startEchoConsumer, startLibraryConsumer, startConsumer };
