/**
 * The README (the front door) and the pages of docs/ say what the code does: the configuration
 * table names every setting, the roles run through npm scripts, the admin walk-through uses the
 * program it created, and no page names a file outside the repository.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { docPage, docPageNames, shellBlocks } from '../helpers/doc-pages.ts';
import { GUIDE } from '../../docs/.vitepress/pages.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

test('the README is a short front door that links to the docs pages', () => {
  expect(readme.split('\n').length).toBeLessThan(300);
  for (const s of ['npm install && npm start', 'npm test']) expect(readme).toContain(s);
  for (const m of readme.matchAll(/\]\(docs\/([\w-]+)\.md[)#]/g)) expect(docPageNames()).toContain(m[1]);
});

test.each(['README', ...docPageNames()])('%s names no file outside the repository', (name) => {
  const text = name === 'README' ? readme : docPage(name);
  // docs/ pages may point one level up (../bench/…); nothing may leave the repository.
  expect(text).not.toMatch(name === 'README' ? /\.\.\/[\w.-]/ : /\.\.\/\.\.\/[\w.-]/);
  expect(text).not.toMatch(/\/work\/|shared\/spec\.md/);
});

test('the admin walk-through uses the program it just created, not the demo program', () => {
  const page = docPage('cli');
  const block = page.slice(page.indexOf('programs:create --name "Acme"'));
  const created = Number(/\{"program": \{"id": (\d+)/.exec(block)?.[1]);
  expect(created).toBeGreaterThan(1);
  for (const m of block
    .slice(0, block.indexOf('```'))
    .matchAll(/admin -- (?:keys|partners|list|commissions|withdrawals|providers|webhooks)[\w:-]* (\d+)/g)) {
    expect(Number(m[1]), m[0]).toBe(created);
  }
});

test('the docs say the default currency and what PUBLIC_BASE_URL changes', () => {
  expect(docPage('tracking-api')).toMatch(/defaults to `USD`/);
  expect(docPage('configuration')).toMatch(/`PUBLIC_BASE_URL`[^\n]*webhook URL[^\n]*relative/);
});

test('the deployment page runs the roles through npm scripts (the system Node may be older than 24)', () => {
  const page = docPage('deployment');
  expect(page).not.toMatch(/^\s*node src\/main\.ts/m);
  for (const s of ['npm start', 'npm run start:http', 'npm run start:worker', 'npm run migrate'])
    expect(page).toContain(s);
});

test('the configuration page names every configuration variable', async () => {
  const { configSchema } = await import('../../src/config.ts');
  const page = docPage('configuration');
  const missing = Object.keys(configSchema.shape).filter((k) => !page.includes(`\`${k}\``));
  expect(missing).toEqual([]);
});

/** Guide pages whose every ```sh block a test runs as written. */
const RUN_BY_TEST: Record<string, string> = {
  'first-program': 'test/docs/first-program.test.ts',
  'moving-from-rewardful': 'test/importers/import-cli.test.ts',
};

test.each(GUIDE)('every shell block of the guide page %s is run by a test, or says why not', (name) => {
  const page = docPage(name);
  if (RUN_BY_TEST[name]) {
    expect(shellBlocks(page).length).toBeGreaterThan(0);
    expect(page).toContain(RUN_BY_TEST[name]);
    return;
  }
  const unmarked = [...page.matchAll(/(?:^|\n)([^\n]*)\n```sh\n/g)].filter(
    (m) => !/^<!-- not run by a test: .+ -->$/.test(m[1]!),
  );
  expect(unmarked.map((m) => m[0])).toEqual([]);
});
