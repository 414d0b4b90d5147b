// Generated OpenAPI clients as their users make them (test helper): `openapi-typescript` turns a
// served document into types, a small program using `openapi-fetch` with those types is compiled
// by TypeScript (strict) and run with node. The folder sits under node_modules so the program
// resolves openapi-fetch as a project would, and git never sees it.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import openapiTS, { astToString } from 'openapi-typescript';
import { ROOT } from './helpers.js';

export interface GeneratedClient {
  dir: string;
  /** Compiles `main.ts` (which imports `./schema.js`): the TypeScript errors, one line each. */
  compile(source: string): string[];
  /** Runs the compiled main.js with arguments; its stdout parsed as JSON. */
  run(args: string[]): Promise<any>;
  remove(): void;
}

export async function generateClient(document: unknown): Promise<GeneratedClient> {
  const base = join(ROOT, 'node_modules', '.cache');
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(join(base, 'linework-client-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  const ast = await openapiTS(document as Parameters<typeof openapiTS>[0]);
  writeFileSync(join(dir, 'schema.d.ts'), astToString(ast));
  return {
    dir,
    compile(source) {
      writeFileSync(join(dir, 'main.ts'), source);
      const options: ts.CompilerOptions = {
        strict: true, noUncheckedIndexedAccess: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext, skipLibCheck: true, outDir: dir, types: ['node'],
      };
      const program = ts.createProgram([join(dir, 'main.ts')], options);
      const emitted = program.emit();
      return [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics].map((d) => {
        const where = d.file && d.start !== undefined ? `${d.file.fileName.slice(dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}` : '';
        return `${where} TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
      });
    },
    async run(args) {
      const { stdout } = await promisify(execFile)(process.execPath, [join(dir, 'main.js'), ...args], { timeout: 30_000 });
      return JSON.parse(stdout);
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
