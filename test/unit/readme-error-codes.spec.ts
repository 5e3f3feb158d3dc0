import { readFileSync } from 'fs';
import { join } from 'path';

/** The README's Errors table lists every code of EchoMqErrorCode (a new code fails this until it is documented). */
const ROOT = join(__dirname, '..', '..');

it('the README lists every EchoMqError code', () => {
  const source = readFileSync(join(ROOT, 'lib', 'errors', 'echomq.error.ts'), 'utf8');
  const union = /export type EchoMqErrorCode =([^;]+);/.exec(source)![1];
  const codes = [...union.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]);
  expect(codes).toContain('TIMEOUT');
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const errors = readme.slice(readme.indexOf('\n## Errors\n'), readme.indexOf('\n## ', readme.indexOf('\n## Errors\n') + 1));
  const rows = new Set([...errors.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]));
  expect(codes.filter((c) => !rows.has(c))).toEqual([]);
});
