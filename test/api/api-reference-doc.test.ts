/**
 * docs/api.md is the API reference generated from the OpenAPI document (`npm run docs:api`): the
 * committed file must be exactly what the generator renders now, so it cannot drift from the
 * routes, and it names every route the app registers with its fields.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { createHttpApp } from '../../src/http/app.ts';
import { openApiPath } from '../../src/http/openapi/operation.ts';
import { API_DOC_PATH, apiMarkdown } from '../../src/cli/generate-api-docs.ts';
import { useHarness } from '../helpers/harness.ts';

const h = useHarness();

const committed = readFileSync(API_DOC_PATH, 'utf8');

test('the committed docs/api.md is what `npm run docs:api` generates (run it after changing an operation)', () => {
  expect(committed).toBe(apiMarkdown());
});

test('every route the app registers has a section in docs/api.md', () => {
  const routes = createHttpApp(h.ctx)['~routes'];
  const registered = routes
    .filter((r) => r.method !== 'OPTIONS')
    .map((r) => ({ method: r.method ?? 'ALL', route: r.route ?? '' }));
  expect(registered.length).toBeGreaterThan(60);
  const missing = registered
    .filter((r) => !committed.includes(`### ${r.method} \`${openApiPath(r.route)}\``))
    .map((r) => `${r.method} ${r.route}`);
  expect(missing).toEqual([]);
});

test('request and response fields are listed field by field, error codes by status, security by scheme', () => {
  const section = committed.slice(
    committed.indexOf('### POST `/api/v1/track/sale`'),
    committed.indexOf('### POST `/api/v1/track/refund`'),
  );
  expect(section).toMatch(/\| `amount_cents` \| integer \| no \| > 0 \|/);
  expect(section).toMatch(/\| `sale_id` \| integer \| yes \|/);
  expect(section).toMatch(/\| `currency` \|[^\n]*`"USD"`/);
  expect(section).toContain('- **409** error envelope, `code`: `duplicate_transaction`');
  expect(section).toContain('Security: `apiKey`');
  const notifications = committed.slice(committed.indexOf('### POST `/api/v1/partner/notifications/read`'));
  expect(notifications).toContain('Security: `partnerSession` + `csrfToken`');
  expect(notifications).toMatch(/\| `unread_count` \| integer \| yes \|/);
});
