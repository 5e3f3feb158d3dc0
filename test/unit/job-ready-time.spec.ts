import { splitAt } from '../../lib/scripts/job-ready-time';

describe('a row\'s `at`, read apart', () => {
  it.each([
    [undefined, { submitted: 0 }],
    ['', { submitted: 0 }],
    ['0', { submitted: 0 }],
    ['1764590400123', { submitted: 1764590400123 }],
    [':1764590401000', { submitted: 0, ready: 1764590401000 }],
    ['1764590400123:1764590401000', { submitted: 1764590400123, ready: 1764590401000 }],
    ['1764590400123:', { submitted: 1764590400123, ready: undefined }],
  ])('%j', (raw, parts) => {
    expect(splitAt(raw)).toEqual(parts);
  });
});
