import { echoMqAclRules } from './redis/acl';
/** @internal Message factories: every text the library shows a user comes from here. */

const show = (value: unknown): string => {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'number' || typeof value === 'boolean' || value == null) return String(value);
  return Object.prototype.toString.call(value);
};

export const invalidArgument = (argument: string, rule: string, value: unknown): string =>
  `Invalid argument "${argument}": ${rule} (got ${show(value)}).`;

export const nameRule = (max: number): string =>
  `must be a non-empty string of at most ${max} bytes without "{", "}" or control characters`;

export const wellFormedRule =
  'must be well-formed Unicode: it holds a lone UTF-16 surrogate, which has no UTF-8 form (two such names would share one key)';

export const reapTakesNo = (option: string): string =>
  `Invalid argument "opts.${option}": reap() does not take it. A reaped lease goes back to its lane's head (or dead once its attempts are spent); `
  + 'to retry later or dead-letter a job you hold, call fail(queue, jobId, token, error, { backoff } or { dead: true }).';

/**
 * What a consumer's log says after an ack of `jobId` rejected with `err` (`ack`: its verb and its noun,
 * e.g. ['complete', 'completion']): a NOT_REPLICATED ack stands on the primary (only its replicas did
 * not confirm it in time), any other may not have been written.
 */
export const unsettledAck = (consumer: string, [verb, noun]: [string, string], jobId: string, err: unknown): string => {
  const message = (err as Error)?.message;
  if ((err as { code?: unknown })?.code === 'NOT_REPLICATED') {
    return `${consumer}: the ${noun} of job ${jobId} stands on the primary, but its replicas did not confirm it in time (${message}); `
      + 'a failover before they do may lose it, and the job is then served again after its lease.';
  }
  return `${consumer}: could not ${verb} job ${jobId} (${message}); it is served again after its lease.`;
};

export const payloadNotJson = (reason: string, argument = 'payload'): string =>
  `Invalid argument "${argument}": it must be JSON-serialisable (${reason}). Pass plain objects, arrays, strings, numbers, booleans or null.`;

/** `knob`: the module option that sets the limit, or null for a fixed one (progress: 64 KiB). */
export const payloadTooLarge = (bytes: number, max: number, argument = 'payload', knob: string | null = 'maxPayloadBytes'): string =>
  `Invalid argument "${argument}": its JSON is ${bytes} bytes, over the limit of ${max}. Store large data elsewhere and pass a reference${knob ? `, or raise ${knob}` : ' (the limit is fixed)'}.`;

export const connectionClosed = (op: string, queue: string): string =>
  `EchoMQ's connection to Redis is closed, so ${op}${queue ? ` on queue "${queue}"` : ''} may not have reached the server: the module has shut down (app.close()), or the client given as its connection was closed. Call it while the application runs.`;

export const clusterUnreachable = (op: string, queue: string, reason: string): string =>
  `EchoMQ ${op}${queue ? ` on queue "${queue}"` : ''} got no answer from the Redis Cluster through its retries (${reason}): `
  + 'a failover took longer than they last, or the slot has no master. The write may stand: retry a submit with the same jobId; '
  + 'raise the Cluster options maxRedirections or retryDelayOnFailover to wait through longer failovers.';

export const scriptsDirEmpty = (dir: string): string =>
  `EchoMQ found no Lua scripts in ${dir}; the package's lua/ folder is missing or empty. Reinstall @echomq/nestjs.`;

export const badScriptFileName = (file: string): string =>
  `EchoMQ cannot load the Lua script ${file}: script names must be <verbNoun>-<numberOfKeys>.lua.`;

export const missingInclude = (file: string, include: string): string =>
  `EchoMQ cannot load the Lua script ${file}: it includes "${include}", which is not in lua/includes/.`;

export const badInclude = (file: string, line: string): string =>
  `EchoMQ cannot load the Lua script ${file}: the line ${JSON.stringify(line)} is not a well-formed include; write it as --- @include "helperName".`;

export const duplicateScript = (first: string, second: string): string =>
  `EchoMQ cannot load the Lua scripts ${first} and ${second}: two scripts share one name; keep exactly one <verbNoun>-<numberOfKeys>.lua per operation.`;

export const idsExhausted = (queue: string, tries: number): string =>
  `EchoMQ could not admit a job into queue "${queue}": ${tries} freshly minted job ids were all taken by other jobs, so the job was not admitted. Give each process a distinct job-id node.`;

export const serverRejected = (operation: string, queue: string, detail: string): string =>
  `EchoMQ ${operation} on queue "${queue}" failed on the server: ${detail}`;

export const outOfMemory = (operation: string, queue: string): string =>
  `EchoMQ ${operation} on queue "${queue}" was refused: the server is out of memory (maxmemory reached). Nothing was written. Free memory or raise maxmemory, and keep maxmemory-policy at noeviction.`;

export const evictionPolicyWarning = (policy: string): string =>
  `The Redis server's maxmemory-policy is "${policy}": under memory pressure it may evict queue keys and lose jobs. Set it to noeviction.`;

export const missingHandle = (className: string): string =>
  `${className} is marked @LaneConsumer() but has no handle(job) method. Add "async handle(job: LaneJob) { … }".`;

export const weightedWithoutConsumer = (className: string): string =>
  `${className} is marked @Weighted() but not @LaneConsumer(queue). @Weighted requires @LaneConsumer.`;

export const invalidConsumerQueue = (className: string, queue: unknown): string =>
  `${className} has an invalid @LaneConsumer queue name ${show(queue)}: ${nameRule(200)}.`;

export const invalidConsumerOption = (className: string, option: string, rule: string, value: unknown): string =>
  `${className} has an invalid @LaneConsumer option "${option}": ${rule} (got ${show(value)}).`;

export const duplicateConsumer = (className: string, queue: string): string =>
  `${className} is registered twice as a consumer of "${queue}". Provide each @LaneConsumer class once.`;

export const scopedConsumer = (className: string): string =>
  `${className} is a request-scoped or transient @LaneConsumer; consumers must be singletons. It was skipped.`;

export const unknownLaneEvent = (className: string, method: string, event: unknown): string =>
  `${className}.${method} is marked @OnLaneEvent(${show(event)}), which is not an event; use 'active', 'completed', 'failed' or 'lost'.`;

export const laneEventNotMethod = (className: string, member: string): string =>
  `${className}.${member} is marked @OnLaneEvent() but is not a method. Put @OnLaneEvent on a method of the class.`;

export const laneEventWithoutConsumer = (className: string): string =>
  `${className} has @OnLaneEvent() methods but is not marked @LaneConsumer(queue). @OnLaneEvent requires @LaneConsumer.`;

export const laneEventFailed = (listener: string, event: string, jobId: string, reason: string): string =>
  `${listener} (on '${event}' of job ${jobId}) threw: ${reason}. The job's outcome is unchanged.`;

export const missingOptionalPeer = (pkg: string, entry: string): string =>
  `${entry} needs the package "${pkg}", which is not installed. Install it (npm install ${pkg}) to use ${entry}; the main entry @echomq/nestjs works without it.`;

export const waitTimedOut = (queue: string, jobId: string, ms: number): string =>
  `waitFor timed out after ${ms} ms: job ${jobId} of queue "${queue}" has not completed or died yet (it may still).`;

export const waitClosed = (queue: string, jobId: string): string =>
  `waitFor of job ${jobId} on queue "${queue}" ended: the application is shutting down and closes its connections. `
  + 'The job may still finish: read it with job() from a process that runs.';

export const connectionFailedAtStart = (name: string, err: Error & { code?: string }): string => {
  const tls = /CERT|SELF_SIGNED|TLS|SSL|HOSTNAME/.test(err.code ?? '');
  const hint = tls
    ? 'The server\'s TLS certificate was not accepted: pass the CA that signed it (connection: { tls: { ca } }, or NODE_EXTRA_CA_CERTS for a rediss:// URL) and connect by a name or IP address the certificate lists.'
    : 'The server refused the credentials: check the username and password of the connection.';
  return `EchoMQ could not connect to Redis (${name}): ${err.message}${err.code ? ` [${err.code}]` : ''}. ${hint} The application does not start with a connection that cannot succeed.`;
};

export const aclRefused = (operation: string, queue: string, prefix: string, detail: string): string =>
  `EchoMQ ${operation} on queue "${queue}" was refused by the server's access control (NOPERM): the connection's user lacks `
  + `a permission EchoMQ needs, access to the keys ${prefix}:* (~${prefix}:*) or one of the commands it runs. `
  + `Grant the user: ${echoMqAclRules(prefix)}. The server said: ${detail}`;

export const notReplicated = (operation: string, queue: string, got: number, wanted: number, timeoutMs: number,
  what = `held by ${wanted} replica(s)`): string =>
  `EchoMQ ${operation} on queue "${queue}" was written but not ${what} within ${timeoutMs} ms (${got} of ${wanted} confirmed): `
  + 'a failover now could lose it. The write may stand: retry a submit with the same jobId (it is not admitted twice).';

export const callUnanswered = (operation: string, queue: string, ms: number): string =>
  `EchoMQ ${operation}${queue ? ` on queue "${queue}"` : ''} got no answer from the server within ${ms} ms (callTimeoutMs): `
  + 'the server is unreachable or stalled. The call is still queued on the connection, so a write may stand: '
  + 'retry a submit with the same jobId (it is not admitted twice); a claim answered late hands its jobs back.';

export const fsyncUnsupported = (): string =>
  'EchoMqModule option durability.fsync needs the WAITAOF command (Redis 7.2+, Valkey 8+), which this server does not have. Drop fsync, or use appendfsync always on the server.';

export const adoptedLanes = (queue: string, lanes: number): string =>
  `Queue ${queue}: its ${lanes} lane(s) from before 0.2 are in the lane index now (scanLanes, topLanes, stats and the dashboard see them).`;

export const queueRegisteredTwice = (queue: string, first: string, second: string): string =>
  `Queue "${queue}" is registered twice with different defaults (${first} and ${second}); register it once, or with the same defaults everywhere.`;

export const queueHasActiveJobs = (queue: string, active: number): string =>
  `obliterate of queue "${queue}" refused: ${active} job(s) are active; let them finish (or pause the queue and wait), or pass { force: true } to delete it anyway`;

export const unknownQueueEvent = (className: string, method: string, event: unknown): string =>
  `@OnQueueEvent on ${className}.${method} names the event ${show(event)}: use one of 'submitted', 'completed', 'failed', 'dead', 'progress', 'cancelled'.`;

export const queueEventNotMethod = (className: string, member: string): string =>
  `@OnQueueEvent on ${className}.${member} is not on a method: put it on a method that takes the event.`;

export const queueEventWithoutListener = (className: string): string =>
  `${className} has @OnQueueEvent methods but no @QueueEventsListener(queue): add it to the class so its methods hear that queue's events.`;

export const invalidListenerQueue = (className: string, queue: unknown): string =>
  `@QueueEventsListener on ${className} names the queue ${show(queue)}: give it a queue name (a non-empty string without braces or control characters, at most 200 bytes).`;

export const queueEventFailed = (listener: string, event: string, jobId: string, reason: string): string =>
  `${listener} threw on the ${event} event of job ${jobId}: ${reason} (the event is not delivered again).`;

export const queueEventsRefused = (queues: string, detail: string, prefix: string): string =>
  `could not subscribe to the events of ${queues} (${detail}): no @OnQueueEvent method runs. `
  + `If the server refused it, grant the EchoMQ user: ${echoMqAclRules(prefix)}`;

export const tenantsInCompat = (operation: string): string =>
  `${operation}: tenants are not available with compat: 'echomq' (the EchoMQ reference has no tenants); drop the tenant, or use a queue the reference does not write.`;

export const fairnessInCompat = (by: string): string =>
  `fairness: "${by}" is not available with compat: 'echomq' (the EchoMQ reference serves its ring in rotation and would not keep the virtual time); use by: 'jobs', or a queue the reference does not write.`;

export const laneFull = (argument: string, group: string, n: number): string =>
  `Lane "${group}" is full: it holds its maxDepth of ${n} pending or scheduled jobs, so "${argument}" was refused and nothing was written; `
  + 'retry once its jobs are served, raise its maxDepth, or remove it with maxDepth(queue, group, null).';

export const tenantTaken = (argument: string, group: string, tenant: string, current: string): string =>
  `Invalid argument "${argument}": lane "${group}" holds jobs ${current === '' ? 'under no tenant' : `under tenant "${current}"`}, so it cannot move to tenant "${tenant}"; `
  + 'submit without a tenant (the job goes to the lane as it is), or use another group for that tenant.';

export const laneMoving = (queue: string, group: string, rounds: number): string =>
  `Queue ${show(queue)}: lane "${group}" kept moving between tenants while this submit looked for it (${rounds} times), and none of its jobs in this call were written. Retry the call (with the jobs' jobIds, if you gave them).`;

export const laneSettingsLeftBehind = (argument: string, group: string, tenant: string): string =>
  `Invalid argument "${argument}": on this sharded queue lane "${group}" has settings (a weight, limit, rate, pause, maxDepth or ordered) in its own shard, and naming tenant "${tenant}" for it would move the lane to the tenant's shard without them. `
  + 'Name the tenant in the lane\'s first submit and set the lane\'s settings after it, or clear them (limit null, weight 1, …), submit, then set them again.';

export const shardsNotEmpty = (queue: string, shard: number): string =>
  `shards: queue ${show(queue)} holds jobs${shard > 0 ? ` (in its shard ${shard})` : ''}; its shard count changes only while it holds no pending, scheduled, active or dead job. Drain it (or wait for it to empty), then call shards again.`;

export const shardMapChanging = (queue: string, shard: number, waitedMs: number): string =>
  `Queue ${show(queue)}: its shard ${shard} is fenced by a change of the shard count still under way (its shards() call holds the queue's lock; waited ${waitedMs} ms), and none of this call's jobs for it were written (those for other shards may have been). Retry the call once that change is done (with the jobs' jobIds, if you gave them); a change whose process died lets go within 3 s.`;

export const shardsChanging = (queue: string): string =>
  `shards: another shards() call on queue ${show(queue)} is under way (or one stopped less than 3 s ago); call shards again once it is done.`;

export const shardsWithQueueLimit = (queue: string): string =>
  `shards: queue ${show(queue)} has a queueLimit, which a sharded queue cannot keep (each shard counts only its own leases). Remove it (queueLimit(queue, null)) before sharding.`;

export const shardsInCompat = (): string =>
  `shards: a queue cannot be sharded with compat: 'echomq' (the EchoMQ reference reads only the queue's own slot).`;

export const shardsNeedCluster = (n: number): string =>
  `shards: ${n} shards need a Redis Cluster connection, where each shard's slot can live on its own master; on one server they share one core and gain nothing. For tests, set the module option shardsOnOneServer: true.`;

export const notOnShardedQueue = (operation: string, queue: string): string =>
  `${operation}: not available on the sharded queue ${show(queue)} yet (its shards would each answer for part of the queue). Use it on an unsharded queue, or see the README's "Sharded queues" for what a sharded queue supports.`;
