import { EchoMqError } from '../../lib/errors';
import {
  checkDedupKey, checkInt, checkJobId, checkName, checkOptInt, checkOptions, checkToken, encodePayload,
} from '../../lib/validation/validate';
import { resolveEchoMqOptions } from '../../lib/echomq.options';

/** Runs a check that must throw; returns the EchoMqError. */
function rejection(check: () => unknown): EchoMqError {
  try {
    check();
  } catch (err) {
    expect(err).toBeInstanceOf(EchoMqError);
    return err as EchoMqError;
  }
  throw new Error('the check accepted a bad value');
}

describe('validate', () => {
  describe('checkName', () => {
    it.each([
      ['a', 'a'], ['PLR0000000001a', 'PLR0000000001a'], ['200 ASCII bytes', 'x'.repeat(200)], ['200 UTF-8 bytes', 'é'.repeat(100)],
      ['a space', 'with space'], ['a colon', 'a:b'], ['non-ASCII', 'ü🙂'], ['glob characters', '*?[]'],
    ])('accepts %s', (_label, value) => {
      expect(checkName('group', value)).toBe(value);
    });

    it.each([
      ['empty', ''], ['201 bytes', 'x'.repeat(201)], ['202 UTF-8 bytes in 101 characters', 'é'.repeat(101)],
      ['204 bytes in 102 UTF-16 units', '🙂'.repeat(51)], ['an open brace', '{'], ['a close brace', '}'], ['a hash tag', 'a{b}'],
      ['a newline', 'a\nb'], ['NUL', '\u0000'], ['a tab', '\t'], ['U+001F', '\u001f'], ['DEL', '\u007f'],
      ['U+0080', '\u0080'], ['NEL', '\u0085'], ['U+009F', '\u009f'],
    ])('rejects %s', (_label, value) => {
      const err = rejection(() => checkName('group', value, 'q1'));
      expect(err).toMatchObject({ argument: 'group', queue: 'q1', name: 'EchoMqError' });
      expect(err.message).toMatch(/^Invalid argument "group": must be a non-empty string of at most 200 bytes/);
    });

    it.each([['a\uD800'], ['\uDC00b'], ['x\uDBFF\uDBFF'], ['\uDFFF\uD800']])('rejects a lone surrogate in %j', (value) => {
      const err = rejection(() => checkName('group', value, 'q1'));
      expect(err).toMatchObject({ argument: 'group', queue: 'q1' });
      expect(err.message).toMatch(/must be well-formed Unicode/);
    });

    it('accepts surrogate pairs (astral characters)', () => {
      expect(checkName('group', '\uD83D\uDE42x')).toBe('🙂x');
    });

    it.each([[5], [null], [undefined], [{}], [['a']], [true], [Symbol('s')], [10n], [new String('a')]])('rejects the non-string %p', (value) => {
      expect(rejection(() => checkName('queue', value)).argument).toBe('queue');
    });
  });

  describe('checkInt / checkOptInt / checkToken', () => {
    it('accepts integers in range', () => {
      expect(checkInt('n', 1, 1)).toBe(1);
      expect(checkInt('n', 0, 0, 10)).toBe(0);
      expect(checkInt('n', 10, 0, 10)).toBe(10);
      expect(checkInt('n', Number.MAX_SAFE_INTEGER, 1)).toBe(Number.MAX_SAFE_INTEGER);
      expect(checkOptInt('n', undefined, 1)).toBeUndefined();
      expect(checkOptInt('n', 3, 1)).toBe(3);
      expect(checkToken(1)).toBe(1);
    });

    it.each([[NaN], [Infinity], [-Infinity], [1.5], [-1], [0], [11], ['5'], [null], [undefined], [{}], [true], [2 ** 53], [10n]])(
      'checkInt rejects %p for [1, 10]',
      (value) => {
        const err = rejection(() => checkInt('opts.leaseMs', value, 1, 10, 'q'));
        expect(err).toMatchObject({ argument: 'opts.leaseMs', queue: 'q' });
        expect(err.message).toContain('must be an integer from 1 to 10');
      },
    );

    it('states an open upper bound as ">= min"', () => {
      expect(rejection(() => checkInt('weight', 0, 1)).message).toContain('must be an integer >= 1');
    });

    it('checkOptInt rejects null (only undefined means "not given")', () => {
      expect(rejection(() => checkOptInt('opts.delayMs', null, 0)).argument).toBe('opts.delayMs');
    });

    it.each([[0], [-1], [1.5], [NaN], ['1'], [null], [undefined]])('checkToken rejects %p', (value) => {
      expect(rejection(() => checkToken(value, 'q'))).toMatchObject({ argument: 'token', queue: 'q' });
    });
  });

  describe('checkJobId', () => {
    it('accepts JOB + 11 base62 characters', () => {
      expect(checkJobId('jobId', 'JOB0aZ00000000')).toBe('JOB0aZ00000000');
    });
    it.each([[''], ['JOB'], ['JOB123'], ['job00000000000'], ['JOB0000000000_'], ['JOB000000000000'], [5], [null], [undefined]])(
      'rejects %p',
      (value) => {
        const err = rejection(() => checkJobId('opts.jobId', value, 'q'));
        expect(err).toMatchObject({ argument: 'opts.jobId', queue: 'q' });
        expect(err.message).toContain('mintJobId()');
      },
    );
  });

  describe('checkDedupKey', () => {
    it('accepts any non-empty string up to 1,024 bytes, braces included', () => {
      expect(checkDedupKey('{order}:42\n')).toBe('{order}:42\n');
      expect(checkDedupKey('x'.repeat(1024))).toHaveLength(1024);
    });
    it.each([['empty', ''], ['1,025 bytes', 'x'.repeat(1025)], ['1,026 UTF-8 bytes', 'é'.repeat(513)], ['a number', 5], ['null', null], ['an object', {}]])(
      'rejects %s, under the argument name it is given',
      (_label, value) => {
      expect(rejection(() => checkDedupKey(value, 'q')).argument).toBe('dedupKey');
        expect(rejection(() => checkDedupKey(value, 'q', 'items[3].opts.dedupKey')).argument).toBe('items[3].opts.dedupKey');
      },
    );
  });

  describe('checkOptions', () => {
    it('takes undefined and null as no options', () => {
      expect(checkOptions('opts', undefined)).toEqual({});
      expect(checkOptions('opts', null)).toEqual({});
      const o = { leaseMs: 5 };
      expect(checkOptions('opts', o)).toBe(o);
    });
    it.each([[5], ['x'], [true], [[]], [10n], [() => 1]])('rejects %p', (value) => {
      expect(rejection(() => checkOptions('opts', value, 'q'))).toMatchObject({ argument: 'opts', queue: 'q' });
    });
  });

  describe('encodePayload', () => {
    it('serialises JSON values', () => {
      expect(encodePayload({ a: [1, 'two', null, true] }, 100)).toBe('{"a":[1,"two",null,true]}');
      expect(encodePayload(null, 100)).toBe('null');
      expect(encodePayload('s', 100)).toBe('"s"');
      expect(encodePayload({ toJSON: () => 'custom' }, 100)).toBe('"custom"');
    });

    it('counts bytes, not characters, against the limit', () => {
      expect(encodePayload('é'.repeat(4), 10)).toBe('"éééé"');
      const err = rejection(() => encodePayload('é'.repeat(5), 10, 'q'));
      expect(err).toMatchObject({ argument: 'payload', queue: 'q' });
      expect(err.message).toContain('12 bytes, over the limit of 10');
    });

    it('rejects circular, BigInt, function, symbol and undefined payloads, naming the argument it is given', () => {
      const circular: Record<string, unknown> = {};
      circular.me = circular;
      for (const value of [circular, 10n, { n: 10n }, () => 1, Symbol('s'), undefined, { toJSON: () => { throw new Error('nope'); } }]) {
        const err = rejection(() => encodePayload(value, 1_000, 'q', 'items[2].payload'));
        expect(err).toMatchObject({ argument: 'items[2].payload', queue: 'q' });
        expect(err.message).toMatch(/^Invalid argument "items\[2\]\.payload": it must be JSON-serialisable/);
      }
    });
  });

  describe('the module\'s connection', () => {
    it('takes redis:// and rediss:// URLs, socket paths and options, and refuses another scheme, naming connection, with what to pass', () => {
      for (const ok of ['redis://127.0.0.1:6390', 'REDISS://cache.local:6380', '/var/run/redis.sock', { host: 'x', port: 6390 }]) {
        expect(() => resolveEchoMqOptions({ connection: ok as never })).not.toThrow();
      }
      for (const bad of ['http://nothing', 'valkey://127.0.0.1:6390', 'tcp://10.0.0.1:6379']) {
        const err = rejection(() => resolveEchoMqOptions({ connection: bad }));
        expect([err.code, err.argument]).toEqual(['INVALID_ARGUMENT', 'connection']);
        expect(err.message).toMatch(/must start with redis:\/\/ or rediss:\/\//);
      }
    });
  });
});
