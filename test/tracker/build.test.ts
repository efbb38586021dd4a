import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, test } from 'vitest';
import { buildTracker, DEFAULT_OUTDIR, type BuiltFile } from '../../tracker/build.ts';

let built: BuiltFile[];
const read = (name: string) => readFileSync(`${DEFAULT_OUTDIR}/${name}`, 'utf8');

beforeAll(async () => {
  built = await buildTracker();
});

describe('tracker build', () => {
  test('emits the browser script, the loader, the client, the CLI and the statement verifier', () => {
    expect(built.map((b) => b.file.slice(DEFAULT_OUTDIR.length + 1))).toEqual([
      'tracker.js',
      'loader.js',
      'client.js',
      'cli.js',
      'verify-statement.js',
    ]);
  });

  test('tracker.js stays under 5 KB gzip', () => {
    const gzipBytes = gzipSync(readFileSync(`${DEFAULT_OUTDIR}/tracker.js`)).length;
    console.info(`tracker.js: ${gzipBytes} B gzip`);
    expect(gzipBytes).toBeLessThan(5 * 1024);
  });

  test('tracker.js is a self-contained IIFE that never sends an API key', () => {
    const script = read('tracker.js');
    expect(script).not.toMatch(/\bimport\b|\brequire\(/);
    expect(script).not.toMatch(/Authorization|Bearer/i);
  });

  test('client.js imports nothing, so it runs on edge runtimes', () => {
    const client = read('client.js');
    expect(client).not.toMatch(/\bimport\s*[{(*"']|\brequire\(|node:/);
  });
});
