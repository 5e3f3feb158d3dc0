import { execFileSync } from 'child_process';
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { compileReadmeProject, readmeBlocks, writeReadmeProject } from './readme-check';

/** The README compiles: every TypeScript block, against the packed package (see readme-check.ts). */
const ROOT = join(__dirname, '..', '..');

describe('the README\'s TypeScript, against the packed package', () => {
  let dir: string;
  let project: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'echomq-readme-'));
    execFileSync('npm', ['pack', '--pack-destination', dir, '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
    project = join(dir, 'app');
    mkdirSync(join(project, 'node_modules', '@echomq'), { recursive: true });
    execFileSync('tar', ['xzf', join(dir, tarball), '-C', join(project, 'node_modules', '@echomq')]);
    renameSync(join(project, 'node_modules', '@echomq', 'package'), join(project, 'node_modules', '@echomq', 'nestjs'));
  }, 180_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('has TypeScript blocks, each showing its imports', () => {
    const blocks = readmeBlocks();
    expect(blocks.length).toBeGreaterThan(15);
    const bare = blocks.filter((b) => !/^import /m.test(b.code)).map((b) => `README.md:${b.line} (${b.heading})`);
    expect(bare).toEqual([]);
  });

  it('compiles every block under the Nest CLI\'s tsconfig with strict, isolatedModules and emitDecoratorMetadata', () => {
    writeReadmeProject(project, readmeBlocks());
    expect(compileReadmeProject(project)).toEqual([]);
  }, 180_000);
});
