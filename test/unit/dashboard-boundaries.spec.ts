import { readdirSync, readFileSync, statSync } from 'fs';
import { join, relative } from 'path';

const LIB = join(__dirname, '..', '..', 'lib');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return tsFiles(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

const importsOf = (file: string): string[] => [...readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]);

describe('dashboard boundaries', () => {
  const files = tsFiles(LIB);
  const dashboard = files.filter((f) => relative(LIB, f).startsWith('dashboard/'));

  it('the main entry never reaches the dashboard (it is the /dashboard subpath only)', () => {
    const outside = files.filter((f) => !dashboard.includes(f));
    const offenders = outside.filter((f) => importsOf(f).some((m) => /(^|\/)dashboard(\/|$)/.test(m)));
    expect(offenders).toEqual([]);
  });

  it('the dashboard uses the core only through what lib/index.ts exports', () => {
    const offenders = dashboard.flatMap((f) => importsOf(f).filter((m) => m.startsWith('..') && m !== '../index').map((m) => `${relative(LIB, f)}: ${m}`));
    expect(offenders).toEqual([]);
  });

  it('no library file loads the browser driver', () => {
    expect(files.filter((f) => importsOf(f).some((m) => m.startsWith('playwright')))).toEqual([]);
  });
});
