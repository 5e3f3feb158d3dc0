import { Injectable } from '@nestjs/common';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { LaneConsumer, LaneJob, LanesService } from '../../lib';
import { bootApp, nestFixture, until } from '../support/nest';

const QUEUE = 'tr-q';
const handled: { job: LaneJob; spanId?: string; traceId?: string }[] = [];

@LaneConsumer(QUEUE, { concurrency: 4, maxAttempts: 1 })
@Injectable()
class TracedWorker {
  async handle(job: LaneJob<{ fail?: boolean }>): Promise<void> {
    const active = trace.getActiveSpan()?.spanContext();
    handled.push({ job, spanId: active?.spanId, traceId: active?.traceId });
    if (job.payload.fail) throw new Error('traced failure');
  }
}

describe('tracing with @opentelemetry/api (the SDK with an in-memory exporter)', () => {
  const fixture = nestFixture();
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('test-producer');
  const consumerSpans = (): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.name === `${QUEUE} process`);

  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(provider);
  });
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
  });
  beforeEach(() => {
    exporter.reset();
    handled.length = 0;
  });

  async function boot(options = {}) {
    const { app } = await bootApp(fixture.server.url, [TracedWorker], options);
    fixture.apps.push(app);
    return app.get(LanesService);
  }

  /** Submits inside an active producer span, as a traced HTTP handler would. */
  function inProducerSpan<T>(fn: () => Promise<T>): Promise<{ out: T; traceId: string; spanId: string }> {
    return tracer.startActiveSpan('POST /guesses', async (span) => {
      try {
        const out = await fn();
        return { out, ...span.spanContext() };
      } finally {
        span.end();
      }
    });
  }

  it('stores the producer context with the job and runs the handler in a linked consumer span with the messaging attributes', async () => {
    const lanes = await boot();
    const producer = await inProducerSpan(() => lanes.submit(QUEUE, 'ana', { n: 1 }));
    const id = producer.out;
    await until(() => consumerSpans().length === 1, 10_000, 'the consumer span');
    const [span] = consumerSpans();
    expect(span.kind).toBe(SpanKind.CONSUMER);
    expect(span.spanContext().traceId).toBe(producer.traceId);
    expect(span.parentSpanContext?.spanId).toBe(producer.spanId);
    expect(span.links.map((l) => l.context.spanId)).toEqual([producer.spanId]);
    expect(span.attributes).toMatchObject({
      'messaging.system': 'echomq',
      'messaging.destination.name': QUEUE,
      'messaging.message.id': id,
      'echomq.lane': 'ana',
      'echomq.attempt': 1,
    });
    expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
    // The handler ran inside that span.
    expect(handled[0]).toMatchObject({ spanId: span.spanContext().spanId, traceId: producer.traceId });
  });

  it('keeps the context in the row only when a span was active; submitMany carries it per job', async () => {
    const lanes = await boot();
    const client = fixture.server.client();
    try {
      // Held in a paused lane so the rows can be read before anyone claims them.
      await lanes.pause(QUEUE, 'held');
      const plain = await lanes.submit(QUEUE, 'held', { n: 1 });
      const traced = await inProducerSpan(() => lanes.submit(QUEUE, 'held', { n: 2 }));
      const many = await inProducerSpan(() => lanes.submitMany(QUEUE, [{ group: 'held', payload: 3 }, { group: 'held', payload: 4 }]));
      const plainMany = await lanes.submitMany(QUEUE, [{ group: 'held', payload: 5 }]);
      const tc = (id: string) => client.hget(`emq:{${QUEUE}}:job:${id}`, 'tc');
      expect(await tc(plain)).toBeNull();
      expect(await tc(plainMany[0])).toBeNull();
      expect(await tc(traced.out)).toBe(`00-${traced.traceId}-${traced.spanId}-01`);
      expect(await tc(many.out[0])).toBe(`00-${many.traceId}-${many.spanId}-01`);
      expect(await tc(many.out[1])).toBe(`00-${many.traceId}-${many.spanId}-01`);
      await lanes.resume(QUEUE, 'held');
      await until(() => consumerSpans().length === 5, 10_000, 'five consumer spans');
      const byJob = new Map(consumerSpans().map((s) => [s.attributes['messaging.message.id'], s]));
      expect(byJob.get(plain)!.links).toEqual([]);
      expect(byJob.get(plain)!.parentSpanContext).toBeUndefined();
      expect(byJob.get(many.out[1])!.parentSpanContext?.spanId).toBe(many.spanId);
    } finally {
      await client.quit();
    }
  });

  it('marks the consumer span as an error when the handler throws', async () => {
    const lanes = await boot();
    await inProducerSpan(() => lanes.submit(QUEUE, 'ana', { fail: true }));
    await until(() => consumerSpans().length === 1, 10_000, 'the consumer span');
    const [span] = consumerSpans();
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'traced failure' });
    expect(span.events.map((e) => e.name)).toEqual(['exception']);
  });

  it('leaves the context out, not the job, when payload and context would pass the payload limit', async () => {
    const lanes = await boot({ maxPayloadBytes: 100 });
    const client = fixture.server.client();
    try {
      await lanes.pause(QUEUE, 'held');
      const big = 'x'.repeat(90); // its JSON is 92 bytes: fits alone, not with a 55-byte traceparent
      const { out: id } = await inProducerSpan(() => lanes.submit(QUEUE, 'held', big));
      expect(await client.hget(`emq:{${QUEUE}}:job:${id}`, 'payload')).toBe(JSON.stringify(big));
      expect(await client.hget(`emq:{${QUEUE}}:job:${id}`, 'tc')).toBeNull();
    } finally {
      await client.quit();
    }
  });
});
