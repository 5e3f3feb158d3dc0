import * as messages from '../../lib/echomq.messages';
import { EchoMqError } from '../../lib/errors';

describe('messages', () => {
  it('invalidArgument names the argument, the rule and the value it got', () => {
    expect(messages.invalidArgument('opts.leaseMs', 'must be an integer >= 1', 0)).toBe(
      'Invalid argument "opts.leaseMs": must be an integer >= 1 (got 0).',
    );
  });

  it.each([
    ['short', '"short"'],
    ['x'.repeat(41), `"${'x'.repeat(40)}…"`],
    [10n, '10n'],
    [NaN, 'NaN'],
    [null, 'null'],
    [undefined, 'undefined'],
    [true, 'true'],
    [{ a: 1 }, '[object Object]'],
    [[1], '[object Array]'],
    [Symbol('s'), '[object Symbol]'],
    ['a\nb', '"a\\nb"'],
  ])('shows the value %p as %s', (value, shown) => {
    expect(messages.invalidArgument('x', 'rule', value)).toBe(`Invalid argument "x": rule (got ${shown}).`);
  });

  it('wellFormedRule says why a lone surrogate is refused', () => {
    expect(messages.wellFormedRule).toMatch(/^must be well-formed Unicode: .*lone UTF-16 surrogate/);
    expect(messages.invalidArgument('group', messages.wellFormedRule, 'a\uD800')).toMatch(/^Invalid argument "group": must be well-formed Unicode/);
  });

  it('nameRule states the whole rule', () => {
    expect(messages.nameRule(200)).toBe('must be a non-empty string of at most 200 bytes without "{", "}" or control characters');
  });

  it('payload messages name the argument and say what to do', () => {
    expect(messages.payloadNotJson('circular')).toMatch(/^Invalid argument "payload": it must be JSON-serialisable \(circular\)\. Pass plain/);
    expect(messages.payloadNotJson('x', 'items[1].payload')).toMatch(/^Invalid argument "items\[1\]\.payload"/);
    expect(messages.payloadTooLarge(2_000, 1_000)).toBe(
      'Invalid argument "payload": its JSON is 2000 bytes, over the limit of 1000. Store large data elsewhere and pass a reference, or raise maxPayloadBytes.',
    );
    // progress has a fixed limit: no option to raise.
    expect(messages.payloadTooLarge(70_000, 65_536, 'value', null)).toBe(
      'Invalid argument "value": its JSON is 70000 bytes, over the limit of 65536. Store large data elsewhere and pass a reference (the limit is fixed).',
    );
  });

  it('loader messages name the file and the fix', () => {
    expect(messages.scriptsDirEmpty('/x/lua')).toContain('/x/lua');
    expect(messages.badScriptFileName('Claim-1.lua')).toBe(
      'EchoMQ cannot load the Lua script Claim-1.lua: script names must be <verbNoun>-<numberOfKeys>.lua.',
    );
    expect(messages.missingInclude('claim-8.lua', 'nowMs')).toBe(
      'EchoMQ cannot load the Lua script claim-8.lua: it includes "nowMs", which is not in lua/includes/.',
    );
    expect(messages.badInclude('claim-8.lua', "--- @include 'x'")).toBe(
      'EchoMQ cannot load the Lua script claim-8.lua: the line "--- @include \'x\'" is not a well-formed include; write it as --- @include "helperName".',
    );
    expect(messages.duplicateScript('a-1.lua', 'a-2.lua')).toMatch(/a-1\.lua and a-2\.lua/);
  });

  it('run-time messages carry the operation and the queue', () => {
    expect(messages.serverRejected('claim', 'cm', 'ERR echomq: bad')).toBe('EchoMQ claim on queue "cm" failed on the server: ERR echomq: bad');
    expect(messages.outOfMemory('submit', 'cm')).toMatch(/^EchoMQ submit on queue "cm" was refused: the server is out of memory/);
    expect(messages.outOfMemory('submit', 'cm')).toContain('noeviction');
    expect(messages.evictionPolicyWarning('allkeys-lru')).toContain('"allkeys-lru"');
    expect(messages.idsExhausted('cm', 6)).toMatch(/queue "cm": 6 freshly minted job ids were all taken/);
  });

  it('consumer messages name the class and the fix', () => {
    expect(messages.missingHandle('ScoreWorker')).toMatch(/^ScoreWorker is marked @LaneConsumer\(\) but has no handle\(job\) method/);
    expect(messages.weightedWithoutConsumer('ScoreWorker')).toContain('@Weighted requires @LaneConsumer');
    expect(messages.invalidConsumerQueue('ScoreWorker', '')).toBe(
      'ScoreWorker has an invalid @LaneConsumer queue name "": must be a non-empty string of at most 200 bytes without "{", "}" or control characters.',
    );
    expect(messages.invalidConsumerOption('W', 'concurrency', 'must be an integer >= 1', 0)).toBe(
      'W has an invalid @LaneConsumer option "concurrency": must be an integer >= 1 (got 0).',
    );
    expect(messages.duplicateConsumer('W', 'cm')).toContain('"cm"');
    expect(messages.scopedConsumer('W')).toContain('request-scoped or transient');
  });

  it('every message factory returns a non-empty sentence', () => {
    for (const [name, factory] of Object.entries(messages)) {
      const text = typeof factory === 'string' ? factory : (factory as (...a: unknown[]) => string)('a', 'b', 'c');
      expect({ name, ok: typeof text === 'string' && text.length > 10 }).toEqual({ name, ok: true });
    }
  });

  it('unsettledAck says a NOT_REPLICATED ack stands on the primary, and any other failed ack may not have been written', () => {
    const notReplicated = new EchoMqError('not on 1 replica in 500 ms', { code: 'NOT_REPLICATED' });
    expect(messages.unsettledAck('W.handle', ['complete', 'completion'], 'JOB1', notReplicated)).toBe(
      'W.handle: the completion of job JOB1 stands on the primary, but its replicas did not confirm it in time (not on 1 replica in 500 ms); '
      + 'a failover before they do may lose it, and the job is then served again after its lease.',
    );
    expect(messages.unsettledAck('W.handle', ['hand back', 'hand-back'], 'JOB1', new Error('closed'))).toBe(
      'W.handle: could not hand back job JOB1 (closed); it is served again after its lease.',
    );
  });

  it('EchoMqError carries its context', () => {
    const cause = new Error('root');
    const err = new EchoMqError('m', { argument: 'group', queue: 'q', group: 'g', cause });
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({ name: 'EchoMqError', message: 'm', argument: 'group', queue: 'q', group: 'g' });
    expect((err as { cause?: unknown }).cause).toBe(cause);
    expect(new EchoMqError('plain').argument).toBeUndefined();
  });
});
