import type { Context, SpanContext } from '@opentelemetry/api';
import type { LaneJob } from '../interfaces';
import { jobTraceContext } from './job-trace-context';

type OtelApi = typeof import('@opentelemetry/api');

/** @internal Longest trace context kept with a job: a traceparent (55 bytes) and a tracestate. */
export const TRACE_CONTEXT_MAX_BYTES = 600;
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const TRACER_NAME = '@echomq/nestjs';

let api: OtelApi | null | undefined;
let tracer: ReturnType<OtelApi['trace']['getTracer']> | undefined;

/**
 * @internal `@opentelemetry/api` when the application has it installed, else null; probed once, on
 * first use, never at load. NOTE: this is the one optional peer the core may reach, because the API
 * package does nothing on its own: until the application registers an SDK every call below is a
 * no-op, so having it installed but not tracing costs a few calls per job. prom-client and
 * @nestjs/terminus stay behind their subpaths.
 */
function otelApi(): OtelApi | null {
  if (api === undefined) {
    try {
      api = require('@opentelemetry/api') as OtelApi;
    } catch {
      // NOTE: not installed: tracing is off and the library runs exactly as without it.
      api = null;
    }
  }
  return api;
}

/**
 * @internal The active span's context in W3C form (`traceparent`, then `\n` and the `tracestate`
 * when there is one), to be stored with a job at submit; undefined when no span is active.
 */
export function captureTraceContext(): string | undefined {
  const otel = otelApi();
  if (!otel) return undefined;
  const sc = otel.trace.getSpanContext(otel.context.active());
  if (!sc || !otel.isSpanContextValid(sc)) return undefined;
  const tc = `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
  const state = sc.traceState?.serialize();
  // NOTE: the row carries it, so it is bounded: an oversized tracestate is left behind.
  return state && tc.length + 1 + Buffer.byteLength(state) <= TRACE_CONTEXT_MAX_BYTES ? `${tc}\n${state}` : tc;
}

function parse(otel: OtelApi, tc: string): SpanContext | undefined {
  const [parent, state] = tc.split('\n');
  const m = TRACEPARENT.exec(parent);
  if (!m) return undefined;
  const sc: SpanContext = {
    traceId: m[1], spanId: m[2], traceFlags: parseInt(m[3], 16), isRemote: true,
    traceState: state ? otel.createTraceState(state) : undefined,
  };
  return otel.isSpanContextValid(sc) ? sc : undefined;
}

/**
 * @internal Runs a job's handler in a consumer span `<queue> process`, a child of the span that was
 * active at submit and linked to it, with the messaging attributes. Without the API package it
 * just runs the handler.
 */
export function traceJob<T>(job: LaneJob, run: () => Promise<T>): Promise<T> {
  const otel = otelApi();
  if (!otel) return run();
  const tc = jobTraceContext(job);
  const producer = tc ? parse(otel, tc) : undefined;
  const parent: Context = producer ? otel.trace.setSpanContext(otel.ROOT_CONTEXT, producer) : otel.ROOT_CONTEXT;
  // NOTE: the attributes go in at the start, where samplers can see them.
  // NOTE: the API's tracer is a proxy that follows an SDK registered later, so one is enough.
  tracer ??= otel.trace.getTracer(TRACER_NAME);
  const span = tracer.startSpan(`${job.queue} process`, {
    kind: otel.SpanKind.CONSUMER,
    links: producer ? [{ context: producer }] : [],
    attributes: {
      'messaging.system': 'echomq',
      'messaging.operation.type': 'process',
      'messaging.destination.name': job.queue,
      'messaging.message.id': job.id,
      'echomq.lane': job.group,
      'echomq.attempt': job.attempt,
    },
  }, parent);
  // NOTE: without an SDK (or when sampled out) the span records nothing: an untraced job then runs
  // as it would without the package, and a traced one only carries its context on.
  if (!span.isRecording()) return producer ? otel.context.with(otel.trace.setSpan(parent, span), run) : run();
  return otel.context.with(otel.trace.setSpan(parent, span), async () => {
    try {
      return await run();
    } catch (err) {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: otel.SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      throw err;
    } finally {
      span.end();
    }
  });
}
