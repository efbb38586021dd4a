import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

test('the README names no file outside the repository', () => {
  expect(readme).not.toMatch(/\.\.\/[\w.-]/);
  expect(readme).not.toMatch(/\/work\/|shared\/spec\.md/);
});

test('the admin walk-through uses the program it just created, not the demo program', () => {
  const block = readme.slice(readme.indexOf('programs:create --name "Acme"'));
  const created = Number(/\{"program": \{"id": (\d+)/.exec(block)?.[1]);
  expect(created).toBeGreaterThan(1);
  for (const m of block
    .slice(0, block.indexOf('```'))
    .matchAll(/admin -- (?:keys|partners|list|commissions|withdrawals|providers|webhooks)[\w:-]* (\d+)/g)) {
    expect(Number(m[1]), m[0]).toBe(created);
  }
});

test('the README says the default currency and what PUBLIC_BASE_URL changes', () => {
  expect(readme).toMatch(/defaults to `USD`/);
  expect(readme).toMatch(/`PUBLIC_BASE_URL`[^\n]*webhook URL[^\n]*relative/);
});

test('the README runs the roles through npm scripts (the system Node may be older than 24)', () => {
  expect(readme).not.toMatch(/^\s*node src\/main\.ts/m);
  for (const s of ['npm start', 'npm run start:http', 'npm run start:worker', 'npm run migrate'])
    expect(readme).toContain(s);
});

test("the README's configuration table names every configuration variable", async () => {
  const { configSchema } = await import('../../src/config.ts');
  const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## Production deployment'));
  const missing = Object.keys(configSchema.shape).filter((k) => !section.includes(`\`${k}\``));
  expect(missing).toEqual([]);
});
