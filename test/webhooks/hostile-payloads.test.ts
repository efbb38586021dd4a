/**
 * Validly signed webhooks with content PostgreSQL cannot store, for every provider: the event is
 * kept (stored, made storable) or answered 4xx, never a 500 the provider retries forever, and an
 * unstorable value never becomes a job that fails on every attempt.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { METADATA_WEBHOOK_PROVIDERS } from '../../src/core/shared/vocabulary.ts';
import { createHarness, createProgramFixture, type Fixture, type Harness } from '../helpers/harness.ts';
import { PROVIDER_KITS } from './provider-kits.ts';
import type { ProviderKit } from './kits/kit.ts';
import { waitFor } from '../helpers/wait-for.ts';

let h: Harness;
let base = '';
const programs = new Map<string, Fixture>();
beforeAll(async () => {
  h = await createHarness({ WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_ATTEMPTS: '3' });
  base = await h.listen();
  for (const provider of METADATA_WEBHOOK_PROVIDERS) {
    const f = await createProgramFixture(h);
    await h.admin('PUT', `/programs/${f.programId}/providers/${provider}`, {
      signing_secret: PROVIDER_KITS[provider].secret,
    });
    programs.set(provider, f);
  }
});
afterAll(async () => {
  await h?.close();
});

let refs = 0;
async function deliver(kit: ProviderKit, body: string) {
  const f = programs.get(kit.provider) as Fixture;
  const res = await fetch(`${base}/api/v1/webhooks/${kit.provider}/${f.programId}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...kit.sign(body, h.clock.now) },
  });
  return { status: res.status, body: (await res.json()) as any };
}
async function inboxRow(kit: ProviderKit, id: number, settled = true) {
  const f = programs.get(kit.provider) as Fixture;
  return waitFor(async () => {
    const rows = (await h.admin('GET', `/programs/${f.programId}/webhook-events?limit=500`))['webhook-events'] as any[];
    const row = rows.find((r) => r.id === id);
    return row && (!settled || row.status !== 'pending') ? row : undefined;
  }, 10_000);
}
const payment = (kit: ProviderKit, customerKey: string) =>
  kit.payment({
    ref: `hostile${++refs}${kit.provider}`,
    amountCents: 1000,
    keys: { customerKey, clickId: 'no-such-click' },
  }).event;

describe.each(METADATA_WEBHOOK_PROVIDERS.map((p) => [p, PROVIDER_KITS[p]] as const))('%s', (_name, kit) => {
  test.each([
    ['a NUL', 'user\u0000one'],
    ['a lone surrogate', 'user\uD800one'],
  ])('%s in signed metadata: stored storable, processed, never failed', async (_l, key) => {
    const r = await deliver(kit, JSON.stringify(payment(kit, key)));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const row = await inboxRow(kit, r.body.id);
    // Processed to the end: the made-up click id is the reason nothing was recorded.
    expect(row).toMatchObject({ status: 'ignored', error: 'unknown_click_id' });
    expect(row.attempts).toBe(1);
    // The list leaves payloads out; the event's detail has it.
    const { webhook_event: stored } = await h.admin(
      'GET',
      `/programs/${(programs.get(kit.provider) as Fixture).programId}/webhook-events/${r.body.id}`,
    );
    expect(JSON.stringify(stored.payload)).toContain('user\uFFFDone');
  });

  test('a tracker_customer_key of 300 characters: acknowledged and ignored with a reason, never retried', async () => {
    const r = await deliver(kit, JSON.stringify(payment(kit, 'k'.repeat(300))));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const row = await inboxRow(kit, r.body.id);
    expect(row.status).toBe('ignored');
    expect(row.error).toMatch(/customerKey/);
    expect(row.attempts).toBe(0);
  });

  test('10k-deep nesting is a 400 and stores nothing', async () => {
    const event = JSON.stringify(payment(kit, 'deep'));
    const body = `${event.slice(0, -1)},"deep":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    const r = await deliver(kit, body);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error.details.problem).toBe('too_deep');
  });
});

test.each([
  ['stripe', 'id'],
  ['stripe', 'type'],
  ['paddle', 'event_id'],
  ['paddle', 'event_type'],
] as const)(
  '%s: a signed %s of 300 characters is stored (hashed dedupe key or cut type), and its redelivery is a duplicate',
  async (provider, field) => {
    const kit = PROVIDER_KITS[provider];
    const event = { ...payment(kit, 'long-id'), [field]: `${field}_${'x'.repeat(300)}` };
    const body = JSON.stringify(event);
    const first = await deliver(kit, body);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const again = await deliver(kit, body);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, duplicate: true });
    const row = await inboxRow(kit, first.body.id, false);
    expect(row.dedupe_key.length).toBeLessThanOrEqual(255);
    expect(row.event_type.length).toBeLessThanOrEqual(255);
  },
);
