import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { dirname, join, relative } from 'path';
import * as ts from 'typescript';

const ROOT = join(__dirname, '..', '..', '..');

/** A private JavaScript build of lib/ for child processes; `dir/lib` is the entry folder. */
export interface LibBuild {
  dir: string;
  /** The environment a child node process needs to resolve the build's dependencies. */
  env: NodeJS.ProcessEnv;
  remove(): void;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/**
 * Transpiles lib/ file by file (the project compiles with isolatedModules, so this is exact) into a
 * temporary folder, beside a link to the package's lua/ (the loader finds lua/ one level above lib/).
 * NOTE: a private folder rather than dist/, so a concurrent `npm run build` cannot pull it away.
 */
export function buildLib(): LibBuild {
  const dir = mkdtempSync(join(tmpdir(), 'echomq-faults-lib-'));
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.CommonJS,
    target: ts.ScriptTarget.ES2021,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    esModuleInterop: true,
  };
  for (const file of tsFiles(join(ROOT, 'lib'))) {
    const out = ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions: options, fileName: file });
    const target = join(dir, relative(ROOT, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, out.outputText);
  }
  symlinkSync(join(ROOT, 'lua'), join(dir, 'lua'), 'dir');
  return {
    dir,
    env: { ...process.env, NODE_PATH: join(ROOT, 'node_modules') },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
