import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { IGNORED_REASONS, ignoredReasonCode } from '../../src/core/webhooks/ignored-reasons.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const sources = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => readFileSync(join(ROOT, dir, f), 'utf8'));

test('every reason an adapter can give is in the reasons table', () => {
  const given = new Set<string>();
  for (const text of sources('src/providers')) {
    for (const m of text.matchAll(/ignore\('([a-z_]+)'\)|ignoredReason: '([a-z_]+)'/g)) given.add((m[1] ?? m[2])!);
  }
  // readTrackerMetadata's rejection, passed through as ignore(tracker.reason).
  given.add('program_mismatch');
  expect(given.size).toBeGreaterThan(10);
  for (const reason of given) expect(Object.keys(IGNORED_REASONS), reason).toContain(ignoredReasonCode(reason));
});

test('every reason in the table is documented in docs/providers.md', () => {
  const doc = readFileSync(join(ROOT, 'docs/providers.md'), 'utf8');
  for (const reason of Object.keys(IGNORED_REASONS)) {
    expect(doc, reason).toContain(reason === 'unstorable' ? '`unstorable_<field>`' : `\`${reason}\``);
  }
});

test.each([
  ['unstorable_customerKey: longer than 255 characters', 'unstorable'],
  ['unstorable_value', 'unstorable_value'],
  ['unsupported_currency', 'unsupported_currency'],
])('stored reason %s counts as %s', (stored, code) => {
  expect(ignoredReasonCode(stored)).toBe(code);
});
