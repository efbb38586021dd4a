/**
 * Builds the tracker packages with esbuild: `npx node tracker/build.ts [outdir]`.
 *   tracker.js  browser IIFE, minified (served at `{base_url}/tracker.js`)
 *   loader.js   ESM `loadTracker` for bundlers and server-rendered apps
 *   client.js   ESM server client (platform-neutral: Node 20+, edge runtimes)
 *   cli.js      the `tracker` CLI for Node
 * Types come from the TypeScript sources under `tracker/src`.
 */
import { build } from 'esbuild';
import { readFileSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = fileURLToPath(new URL('.', import.meta.url));
export const DEFAULT_OUTDIR = join(root, 'dist');

export type BuiltFile = { file: string; bytes: number; gzipBytes: number };

export async function buildTracker(outdir: string = DEFAULT_OUTDIR): Promise<BuiltFile[]> {
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
    build({ ...common, entryPoints: [src('loader.ts')], outfile: join(outdir, 'loader.js'), format: 'esm', platform: 'browser', target: 'es2020' }),
    build({ ...common, entryPoints: [src('client.ts')], outfile: join(outdir, 'client.js'), format: 'esm', platform: 'neutral', target: 'es2022' }),
    build({ ...common, entryPoints: [src('cli.ts')], outfile: join(outdir, 'cli.js'), format: 'esm', platform: 'node', target: 'node20' }),
  ]);
  return ['tracker.js', 'loader.js', 'client.js', 'cli.js'].map((name) => {
    const file = join(outdir, name);
    const bytes = readFileSync(file);
    return { file, bytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 9 }).length };
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
  for (const { file, bytes, gzipBytes } of await buildTracker(outdir)) {
    console.log(`${file}  ${bytes} B  (${gzipBytes} B gzip)`);
  }
}
