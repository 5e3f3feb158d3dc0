import { CanActivate, Injectable } from '@nestjs/common';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { EchoMqError } from '../../lib';
import { DashboardAssets } from '../../lib/dashboard/dashboard-assets';
import type { EchoMqDashboardOptions } from '../../lib/dashboard/dashboard-options.interface';
import { EchoMqDashboardModule, resolveDashboardOptions } from '../../lib/dashboard/echomq-dashboard.module';

@Injectable()
class AdminGuard implements CanActivate {
  canActivate(): boolean {
    return true;
  }
}

/** What `fn` threw (it must throw). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('did not throw');
}

describe('dashboard options', () => {
  it('applies the defaults', () => {
    expect(resolveDashboardOptions()).toEqual({ path: '/echomq', queues: null, readOnly: true, guard: null });
    expect(resolveDashboardOptions({ path: 'ops/queues/', queues: ['a', 'a'], readOnly: false, guard: AdminGuard }))
      .toEqual({ path: '/ops/queues', queues: ['a', 'a'], readOnly: false, guard: AdminGuard });
  });

  it.each<[string, EchoMqDashboardOptions, string, RegExp]>([
    ['writable without a guard', { readOnly: false }, 'guard',
      /readOnly: false.*needs a guard: add `guard: YourAuthGuard` \(a Nest CanActivate class that checks the caller\), or leave `readOnly` at its default/],
    ['a path that cannot be served', { path: '/a b' }, 'path', /path must look like '\/echomq' .*got "\/a b"\.$/],
    ['a path that is not a string', { path: 7 as never }, 'path', /path must look like '\/echomq' .*got 7\.$/],
    ['a guard instance instead of its class', { guard: new AdminGuard() as never }, 'guard',
      /guard must be a class implementing CanActivate, the class itself \(e\.g\. `guard: AdminGuard`\), not an instance of it; got an instance of AdminGuard\.$/],
    ['a guard that is a string', { guard: 'AdminGuard' as never }, 'guard', /got "AdminGuard"\.$/],
    ['an empty queue name', { queues: [''] }, 'queues',
      /queues must be an array of queue names \(non-empty strings, e\.g\. `queues: \['emails'\]`\), or left out to show the queues of the app's @LaneConsumer classes; got \[""\]\.$/],
    ['queues that are not an array', { queues: 'emails' as never }, 'queues', /queues must be an array .*got "emails"\.$/],
  ])('refuses %s with an EchoMqError (MISCONFIGURED) saying what to do', (_, options, argument, message) => {
    for (const attempt of [() => resolveDashboardOptions(options), () => EchoMqDashboardModule.forRoot(options)]) {
      const err = thrown(attempt);
      expect(err).toBeInstanceOf(EchoMqError);
      expect(err).toMatchObject({ name: 'EchoMqError', code: 'MISCONFIGURED', argument });
      expect((err as Error).message).toMatch(/^EchoMqDashboardModule\.forRoot/);
      expect((err as Error).message).toMatch(message);
    }
  });
});

describe('dashboard files', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'echomq-ui-'));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the page from the package', () => {
    expect(new DashboardAssets().get('index.html')?.type).toBe('text/html; charset=utf-8');
  });

  it.each([
    ['is missing (a bundled app)', () => join(dir, 'absent')],
    ['has no index.html', () => dir],
  ])('fails the boot with an EchoMqError saying what to do when the folder %s', (_, where) => {
    writeFileSync(join(dir, 'app.js'), '');
    const err = thrown(() => new DashboardAssets(where()));
    expect(err).toBeInstanceOf(EchoMqError);
    expect(err).toMatchObject({ code: 'MISCONFIGURED' });
    expect((err as Error).message).toBe(
      `EchoMqDashboardModule: the page's files are missing from ${where()}. They ship in the package (dist/dashboard/ui): `
      + 'reinstall @echomq/nestjs, and if the app is bundled (webpack, esbuild), keep @echomq/nestjs out of the bundle '
      + `(an external) or copy that folder to ${where()}.`,
    );
  });
});
