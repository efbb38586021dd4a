/**
 * Builds the tracker packages with esbuild: `npx node tracker/build.ts [outdir]`.
 *   tracker.js  browser IIFE, minified (served at `{base_url}/tracker.js`)
 *   loader.js   ESM `loadTracker` for bundlers and server-rendered apps
 *   client.js   ESM server client (platform-neutral: Node 20+, edge runtimes)
 *   cli.js      the `tracker` CLI for Node (18+)
 *   verify-statement.js  ESM statement verifier for Node (`verifyStatement`; docs/statement-verification.md)
 *   types/      declarations of client.js, loader.js and verify-statement.js (with `{ types: true }`)
 * `tracker/package.json` publishes this folder as the installable client package (`npm pack`).
 */
import { build } from 'esbuild';
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = fileURLToPath(new URL('.', import.meta.url));
export const DEFAULT_OUTDIR = join(root, 'dist');

export type BuiltFile = { file: string; bytes: number; gzipBytes: number };

export async function buildTracker(outdir: string = DEFAULT_OUTDIR, o: { types?: boolean } = {}): Promise<BuiltFile[]> {
  const src = (path: string): string => join(root, 'src', path);
  const common = { bundle: true, logLevel: 'silent', legalComments: 'none', charset: 'utf8' } as const;
  await Promise.all([
    build({
      ...common,
      entryPoints: [src('browser/tracker.ts')],
      outfile: join(outdir, 'tracker.js'),
      format: 'iife',
      platform: 'browser',
      target: 'es2020',
      minify: true,
    }),
    build({
      ...common,
      entryPoints: [src('loader.ts')],
      outfile: join(outdir, 'loader.js'),
      format: 'esm',
      platform: 'browser',
      target: 'es2020',
    }),
    build({
      ...common,
      entryPoints: [src('client.ts')],
      outfile: join(outdir, 'client.js'),
      format: 'esm',
      platform: 'neutral',
      target: 'es2022',
    }),
    build({
      ...common,
      entryPoints: [src('verify-statement.ts')],
      outfile: join(outdir, 'verify-statement.js'),
      format: 'esm',
      platform: 'node',
      target: 'node18',
    }),
    build({
      ...common,
      entryPoints: [src('cli.ts')],
      outfile: join(outdir, 'cli.js'),
      format: 'esm',
      platform: 'node',
      target: 'node18',
    }),
    o.types ? emitTypes(join(outdir, 'types')) : Promise.resolve(),
  ]);
  return ['tracker.js', 'loader.js', 'client.js', 'cli.js', 'verify-statement.js'].map((name) => {
    const file = join(outdir, name);
    const bytes = readFileSync(file);
    return { file, bytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 9 }).length };
  });
}

/** Declarations of the package's entry points, with the sources' `.ts` specifiers as the `.js` the package holds. */
async function emitTypes(outDir: string): Promise<void> {
  const { default: ts } = await import('typescript');
  const entries = ['client.ts', 'loader.ts', 'verify-statement.ts'].map((f) => join(root, 'src', f));
  const program = ts.createProgram(entries, {
    declaration: true,
    emitDeclarationOnly: true,
    outDir,
    rootDir: join(root, 'src'),
    strict: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    // Node's types for the statement verifier (node:crypto); client.js is kept free of node: by its own test.
    types: ['node'],
  });
  const errors = ts.getPreEmitDiagnostics(program);
  if (errors.length)
    throw new Error(
      ts.formatDiagnostics(errors, {
        getCanonicalFileName: (f) => f,
        getCurrentDirectory: () => root,
        getNewLine: () => '\n',
      }),
    );
  program.emit(undefined, (file, text) => {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text.replace(/(from\s+'\.{1,2}\/[^']+)\.ts'/g, "$1.js'"));
  });
}

function isMain(): boolean {
  try {
    return process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    return false;
  }
}

if (isMain()) {
  const outdir = process.argv[2] ? resolve(process.argv[2]) : DEFAULT_OUTDIR;
  for (const { file, bytes, gzipBytes } of await buildTracker(outdir, { types: true })) {
    console.log(`${file}  ${bytes} B  (${gzipBytes} B gzip)`);
  }
}
