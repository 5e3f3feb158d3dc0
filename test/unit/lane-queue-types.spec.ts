import { join } from 'path';
import * as ts from 'typescript';

/**
 * LaneQueue<T> is derived from LanesService: this compiles type checks with tsc (jest's transform does
 * not type-check). The handle must bind every queue method of LanesService, type payloads by T, and the
 * check must fail for a LanesService that gains a queue method the list of bound methods lacks.
 */
const TYPES = join(__dirname, 'types');

/** The type errors of the check files and everything they import. */
function diagnostics(): string[] {
  const program = ts.createProgram([join(TYPES, 'lane-queue.check.ts'), join(TYPES, 'grown-lanes.check.ts')], {
    strict: true, noEmit: true, skipLibCheck: true, experimentalDecorators: true, emitDecoratorMetadata: true,
    target: ts.ScriptTarget.ES2021, module: ts.ModuleKind.CommonJS, types: ['node'],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${d.file.fileName.split('/').slice(-2).join('/')}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : '';
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

/** The type errors a project compiled with exactOptionalPropertyTypes sees in its own file (the package's own code aside). */
function strictProjectErrors(file: string): string[] {
  const program = ts.createProgram([join(TYPES, file)], {
    strict: true, exactOptionalPropertyTypes: true, noEmit: true, skipLibCheck: true, experimentalDecorators: true,
    emitDecoratorMetadata: true, target: ts.ScriptTarget.ES2021, module: ts.ModuleKind.CommonJS, types: ['node'],
  });
  return ts.getPreEmitDiagnostics(program).filter((d) => d.file?.fileName.endsWith(file))
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('the module options under exactOptionalPropertyTypes', () => {
  it('take the README\'s `connection: process.env.REDIS_URL` (string | undefined) without a cast', () => {
    expect(strictProjectErrors('module-options.check.ts')).toEqual([]);
  }, 120_000);
});

describe('LaneQueue<T>, the type of a queue handle', () => {
  it('binds every queue method of LanesService, types payloads by T, and fails for a LanesService that gains a queue method the list lacks', () => {
    // NOTE: the last is checked by a @ts-expect-error in grown-lanes.check.ts: a check that passed
    // for the grown service would leave that directive unused, which is an error here.
    expect(diagnostics()).toEqual([]);
  }, 120_000);
});
