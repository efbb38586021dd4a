/** The admin CLI's `--field PATH`: one value of the answer, for shell scripts (docs/first-program.md). */
import { expect, test } from 'vitest';
import { pick, render } from '../../src/cli/admin-output.ts';

const answer = {
  program: { id: 2, name: 'Acme', reward_rules: null },
  partners: [{ referral_link: 'https://a.example/?aff=j' }],
};

test('a string prints as it is, anything else as JSON', () => {
  expect(pick(answer, 'program.id')).toBe('2');
  expect(pick(answer, 'program.name')).toBe('Acme');
  expect(pick(answer, 'program.reward_rules')).toBe('null');
  expect(pick(answer, 'partners.0.referral_link')).toBe('https://a.example/?aff=j');
  expect(pick(answer, 'partners.0')).toBe('{"referral_link":"https://a.example/?aff=j"}');
});

test('a path the answer does not have is an error naming it, and render prefers the field to --json', () => {
  expect(() => pick(answer, 'program.key')).toThrow('the answer has no field program.key');
  expect(() => pick(answer, 'partners.3.code')).toThrow('partners.3.code');
  expect(render(answer, { json: true, field: 'program.id' })).toBe('2');
  expect(render(answer, { json: true })).toContain('"referral_link"');
});
