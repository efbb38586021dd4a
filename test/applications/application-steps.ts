/**
 * Steps shared by the application tests: a program with its form switched on (a required web
 * address, an optional textarea, terms version v1) and a valid application body.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Harness } from '../helpers/harness.ts';

export const FORM = {
  enabled: true,
  intro: 'Earn 10% on every sale you refer.',
  fields: [
    { key: 'website', label: 'Website', type: 'url', required: true },
    { key: 'audience', label: 'Tell us about your audience', type: 'textarea', required: false },
  ],
  terms_text: 'Partners promote the shop honestly.',
  terms_version: 'v1',
};

export async function programWithForm(h: Harness, form: Record<string, unknown> = {}): Promise<number> {
  const { program } = await h.admin('POST', '/programs', { name: 'Acme Shop', domain: 'shop.example' });
  await h.admin('PUT', `/programs/${program.id}/application-form`, { ...FORM, ...form });
  return program.id;
}

export const applicant = (over: Record<string, unknown> = {}) => ({
  name: 'Ada Lovelace',
  email: `ada-${randomBytes(3).toString('hex')}@example.com`,
  answers: { website: 'https://ada.example', audience: 'Makers' },
  accept_terms: true,
  ...over,
});

export async function apply(h: Harness, programId: number, body: Record<string, unknown>) {
  return h.request(`/api/v1/programs/${programId}/applications`, { body });
}

export async function applied(h: Harness, programId: number, body = applicant()): Promise<number> {
  const r = await apply(h, programId, body);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.application_id;
}
