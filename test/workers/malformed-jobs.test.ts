import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildWebhookJob } from '../../src/core/jobs/webhook-job.ts';
import { storeWebhookEvent } from '../../src/core/webhooks/webhook-inbox.ts';
import { webhookJobOptions } from '../../src/queue/job-options.ts';
import { bearer, createHarness, createProgramFixture, type Fixture, type Harness } from '../helpers/harness.ts';
import { waitFor } from '../helpers/wait-for.ts';

// Jobs read back from the queue or the inbox are parsed, not trusted: one that does not parse
// fails with the reason and the worker keeps serving. JSON.parse stands for data written by
// another release (or by hand): it reaches the queue untyped, as it would in production.
let h: Harness;
let f: Fixture;

beforeAll(async () => {
  h = await createHarness();
  f = await createProgramFixture(h);
});
afterAll(async () => {
  await h.close();
});

const click = () =>
  h.request('/api/v1/track/click', { body: { affiliate_url: `https://shop.example/?aff=${f.partnerCode}` } });

describe('malformed jobs', () => {
  test('a track job that does not parse fails at once with the reason; the worker keeps running', async () => {
    const bad = JSON.parse('{"kind":"sale","programId":"seven"}');
    await expect(h.ctx.queue.addAndWait('track', bad, 10_000)).rejects.toThrow(/malformed track job: .*programId/);
    expect((await click()).status).toBe(200);
  });

  test('a webhook job that does not parse is dropped; the next one runs', async () => {
    await h.ctx.queue.add('webhook', JSON.parse('{"kind":"webhook","inboxId":"x"}'));
    const stored = await storeWebhookEvent(h.ctx.deps(), {
      provider: 'stripe',
      programId: f.programId,
      event: { dedupeKey: 'evt_good', eventType: 'test.event', jobs: [], ignoredReason: null },
      payload: {},
      receivedAt: h.clock.now,
    });
    await h.ctx.queue.add('webhook', buildWebhookJob(stored.inboxId), webhookJobOptions(h.ctx.config, stored.inboxId));
    await waitFor(async () => (await inboxRow(stored.inboxId)).status === 'processed');
  });

  test('an inbox row whose jobs no longer parse is failed with the reason, never retried', async () => {
    const stored = await storeWebhookEvent(h.ctx.deps(), {
      provider: 'stripe',
      programId: f.programId,
      event: {
        dedupeKey: 'evt_bad',
        eventType: 'checkout.session.completed',
        jobs: JSON.parse('[{"kind":"sale","origin":"provider"}]'),
        ignoredReason: null,
      },
      payload: {},
      receivedAt: h.clock.now,
    });
    await h.ctx.queue.add('webhook', buildWebhookJob(stored.inboxId), webhookJobOptions(h.ctx.config, stored.inboxId));
    const row = await waitFor(async () => {
      const r = await inboxRow(stored.inboxId);
      return r.status === 'failed' && r;
    });
    expect(row.error).toMatch(/^unreadable jobs: .*programId/);
    expect(row.attempts).toBe(1);
    expect((await click()).status).toBe(200);
  });

  test('an inbox row written before jobs carried an origin still runs as a provider job', async () => {
    // A provider refund naming a sale recorded only as a test event answers as a test refund; an
    // API refund would answer not_found. The legacy row's `retryIfSaleMissing` meant "provider".
    const sale = await h.request('/api/v1/track/sale', {
      body: { transaction_id: 'tx-legacy', amount_cents: 1000 },
      headers: bearer(f.testKey),
    });
    expect(sale.status).toBe(200);
    const legacy = {
      kind: 'refund',
      programId: f.programId,
      transactionId: 'tx-legacy',
      amount: { type: 'per_refund', cents: 100 },
      refundId: 're_1',
      refundReason: null,
      reason: 'refund',
      retryIfSaleMissing: true,
      test: false,
      receivedAt: h.clock.now.toISOString(),
    };
    const stored = await storeWebhookEvent(h.ctx.deps(), {
      provider: 'stripe',
      programId: f.programId,
      event: {
        dedupeKey: 'evt_legacy',
        eventType: 'refund.created',
        jobs: JSON.parse(JSON.stringify([legacy])),
        ignoredReason: null,
      },
      payload: {},
      receivedAt: h.clock.now,
    });
    await h.ctx.queue.add('webhook', buildWebhookJob(stored.inboxId), webhookJobOptions(h.ctx.config, stored.inboxId));
    const row = await waitFor(async () => {
      const r = await inboxRow(stored.inboxId);
      return r.status === 'processed' && r;
    });
    expect(row.outcome).toEqual([{ kind: 'test', eventId: expect.any(Number), programId: f.programId }]);
  });
});

async function inboxRow(
  id: number,
): Promise<{ status: string; error: string | null; attempts: number; outcome: unknown }> {
  const { 'webhook-events': rows } = await h.admin('GET', `/programs/${f.programId}/webhook-events?limit=500`);
  const row = rows.find((r: { id: number }) => r.id === id);
  if (!row) throw new Error(`inbox row ${id} not listed`);
  return row;
}
