import { spawnSync } from 'child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'fs';
import { dirname, join } from 'path';

/**
 * The README's TypeScript, compiled as an application would compile it: every ```ts block a file of
 * its own in a project whose node_modules holds the packed package and the packages the blocks
 * import, under the tsconfig `nest new` writes plus `strict` (it already sets `isolatedModules` and
 * `emitDecoratorMetadata`). Every block must show its imports: a block is not a fragment of another.
 */
const ROOT = join(__dirname, '..', '..');

/** What the blocks may import, linked from this repository's node_modules (all devDependencies). */
export const README_PACKAGES = [
  'ioredis', 'iovalkey', '@nestjs/common', '@nestjs/core', '@nestjs/testing', '@nestjs/platform-express', '@nestjs/schedule',
  '@nestjs/terminus', '@willsoto/nestjs-prometheus', 'prom-client', '@opentelemetry/api', '@opentelemetry/sdk-trace-base',
  '@opentelemetry/context-async-hooks', 'reflect-metadata', 'rxjs', '@types/node', '@types/jest',
];

/** The compiler options of a `nest new` project (@nestjs/cli 11), plus strict. */
export const NEST_APP_TSCONFIG = {
  module: 'nodenext', moduleResolution: 'nodenext', resolvePackageJsonExports: true, esModuleInterop: true,
  isolatedModules: true, declaration: true, removeComments: true, emitDecoratorMetadata: true, experimentalDecorators: true,
  allowSyntheticDefaultImports: true, target: 'ES2023', sourceMap: true, outDir: './dist', baseUrl: './', incremental: true,
  skipLibCheck: true, strictNullChecks: true, forceConsistentCasingInFileNames: true, noImplicitAny: false,
  strictBindCallApply: false, noFallthroughCasesInSwitch: false,
  strict: true, noEmit: true, types: ['node', 'jest'],
};

export interface ReadmeBlock {
  /** The README line of the block's opening fence. */
  line: number;
  /** The heading the block is under. */
  heading: string;
  code: string;
}

/** Every ```ts / ```typescript block of the README, in order. */
export function readmeBlocks(readme = readFileSync(join(ROOT, 'README.md'), 'utf8')): ReadmeBlock[] {
  const lines = readme.split('\n');
  const blocks: ReadmeBlock[] = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    if (/^#{1,6} /.test(lines[i])) heading = lines[i].replace(/^#+ /, '');
    if (!/^```(ts|typescript)\s*$/.test(lines[i])) {
      if (/^```/.test(lines[i])) while (++i < lines.length && !/^```/.test(lines[i]));
      continue;
    }
    const start = i;
    const code: string[] = [];
    while (++i < lines.length && !/^```/.test(lines[i])) code.push(lines[i]);
    blocks.push({ line: start + 1, heading, code: code.join('\n') + '\n' });
  }
  return blocks;
}

/** Writes the blocks into `project` (whose node_modules holds @echomq/nestjs) with the packages linked and the tsconfig. */
export function writeReadmeProject(project: string, blocks: ReadmeBlock[]): string[] {
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'readme-check', private: true }));
  for (const name of README_PACKAGES) {
    const to = join(project, 'node_modules', name);
    mkdirSync(dirname(to), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), to, 'dir');
  }
  mkdirSync(join(project, 'src'), { recursive: true });
  const files = blocks.map((b) => {
    const file = `src/readme-line-${b.line}.ts`;
    writeFileSync(join(project, file), b.code);
    return file;
  });
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: NEST_APP_TSCONFIG, files }));
  return files;
}

/** Compiles the project; one line per error, `README.md:<line>: <message>` (the README's own line). */
export function compileReadmeProject(project: string): string[] {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json', '--pretty', 'false'], { cwd: project, encoding: 'utf8' });
  const out = (r.stdout + r.stderr).split('\n').filter(Boolean);
  const errors = out.map((l) => {
    const m = /^src\/readme-line-(\d+)\.ts\((\d+),(\d+)\): (.*)$/.exec(l);
    return m ? `README.md:${Number(m[1]) + Number(m[2])}:${m[3]}: ${m[4]}` : l;
  });
  if (r.status !== 0 && errors.length === 0) errors.push(`tsc exited with ${r.status}`);
  return errors;
}
