import { context, createTraceState, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { LaneJob } from '../../lib';
import { setJobTraceContext } from '../../lib/tracing/job-trace-context';
import { captureTraceContext, TRACE_CONTEXT_MAX_BYTES, traceJob } from '../../lib/tracing/job-tracing';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const SPAN = 'b7ad6b7169203331';

describe('trace context of a job (W3C form, kept in the row)', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(provider);
  });
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
  });
  beforeEach(() => exporter.reset());

  const within = <T>(spanContext: Parameters<typeof trace.wrapSpanContext>[0], fn: () => T): T =>
    context.with(trace.setSpanContext(context.active(), spanContext), fn);

  it('is nothing without an active span', () => {
    expect(captureTraceContext()).toBeUndefined();
  });

  it('is the traceparent of the active span, with its tracestate after a newline', () => {
    const sc = { traceId: TRACE, spanId: SPAN, traceFlags: TraceFlags.SAMPLED };
    expect(within(sc, captureTraceContext)).toBe(`00-${TRACE}-${SPAN}-01`);
    const traceState = createTraceState('vendor=abc,other=x y');
    expect(within({ ...sc, traceFlags: TraceFlags.NONE, traceState }, captureTraceContext)).toBe(`00-${TRACE}-${SPAN}-00\nvendor=abc,other=x y`);
  });

  it('leaves out a tracestate that would make it longer than its bound', () => {
    const traceState = createTraceState(`big=${'v'.repeat(TRACE_CONTEXT_MAX_BYTES)}`);
    expect(within({ traceId: TRACE, spanId: SPAN, traceFlags: 1, traceState }, captureTraceContext)).toBe(`00-${TRACE}-${SPAN}-01`);
  });

  it('parents the consumer span on a stored context, and ignores a malformed one', async () => {
    const job = (id: string): LaneJob => ({ id, queue: 'q', group: 'g', payload: null, attempt: 2, leaseUntil: 0, submittedAt: 0 });
    const good = job('JOB00000000001');
    setJobTraceContext(good, `00-${TRACE}-${SPAN}-01\nvendor=abc`);
    const bad = job('JOB00000000002');
    setJobTraceContext(bad, '01-not-a-traceparent');
    expect(await traceJob(good, async () => 'ok')).toBe('ok');
    expect(await traceJob(bad, async () => 'ok too')).toBe('ok too');
    const [a, b] = exporter.getFinishedSpans();
    expect(a.spanContext().traceId).toBe(TRACE);
    expect(a.parentSpanContext).toMatchObject({ spanId: SPAN, isRemote: true });
    expect(a.links[0].context.traceState?.get('vendor')).toBe('abc');
    expect(a.attributes['echomq.attempt']).toBe(2);
    expect(b.spanContext().traceId).not.toBe(TRACE);
    expect(b.parentSpanContext).toBeUndefined();
    expect(b.links).toEqual([]);
  });
});
