/**
 * The repository's shape: files small enough to read whole, a core root that holds only what every
 * capability shares, and a README in every source folder saying what it holds.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test } from 'vitest';

const ROOT = new URL('../', import.meta.url).pathname;
const MAX_LINES = 300;
const SKIPPED = new Set(['node_modules', 'dist']);

/** Every folder below `dir` (relative to the repository root), depth first, build output and dependencies left out. */
function foldersUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory() && !SKIPPED.has(e.name))
    .flatMap((e) => [join(dir, e.name), ...foldersUnder(join(dir, e.name))]);
}

const filesIn = (dir: string) =>
  readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(dir, e.name));

const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

test(`no .ts, .vue or .js file of src, tracker, dashboard/src, test or bench has more than ${MAX_LINES} lines`, () => {
  const roots = ['src', 'tracker', 'dashboard/src', 'test', 'bench'];
  const files = roots
    .flatMap((root) => [root, ...foldersUnder(root)])
    .flatMap(filesIn)
    .filter((f) => /\.(ts|vue|js)$/.test(f));
  expect(files.length).toBeGreaterThan(100);
  const over = files
    .map((f) => ({ file: f, lines: lineCount(readFileSync(join(ROOT, f), 'utf8')) }))
    .filter((f) => f.lines > MAX_LINES)
    .map((f) => `${f.file}: ${f.lines} lines`);
  expect(over).toEqual([]);
});

test('src/core holds at most 10 files at its root: the rest lives in capability folders', () => {
  const atRoot = filesIn('src/core').map((f) => relative('src/core', f));
  expect(atRoot.length, atRoot.join(', ')).toBeLessThanOrEqual(10);
});

test('every folder of src, tracker/src, dashboard/src, test and bench has a README.md', () => {
  // Fixture data folders (below a `fixtures` folder) say where their files came from instead.
  const folders = ['src', 'tracker/src', 'dashboard/src', 'test', 'bench']
    .flatMap((root) => [root, ...foldersUnder(root)])
    .filter((dir) => !/(^|\/)fixtures\/./.test(dir));
  expect(folders.length).toBeGreaterThan(10);
  const without = folders.filter((dir) => !existsSync(join(ROOT, dir, 'README.md')));
  expect(without).toEqual([]);
});
