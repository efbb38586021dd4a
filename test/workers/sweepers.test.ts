import { afterAll, beforeAll, expect, test } from 'vitest';
import { findSession, startSession } from '../../src/core/programs/sessions.ts';
import { DAY_MS } from '../../src/core/deps.ts';
import { resetWebhookEventsForReplay, storeWebhookEvent } from '../../src/core/webhooks/webhook-inbox.ts';
import { webhookRetryHorizonMs } from '../../src/queue/job-options.ts';
import { sweepHolds } from '../../src/workers/sweep-holds.ts';
import { sweepInbox } from '../../src/workers/sweep-inbox.ts';
import { sweepOutbox } from '../../src/workers/sweep-outbox.ts';
import { sweepPayloads } from '../../src/workers/sweep-payloads.ts';
import { sweepSessions } from '../../src/workers/sweep-sessions.ts';
import {
  bearer,
  clickAndLead,
  createHarness,
  createProgramFixture,
  type Fixture,
  type Harness,
} from '../helpers/harness.ts';
import { waitFor } from '../helpers/wait-for.ts';

// Each sweeper called as the worker role calls it, on the mode's own database and queue (embedded:
// PGlite + in-process queue; production: PostgreSQL + BullMQ), with the injected clock.
let h: Harness;
let f: Fixture;

beforeAll(async () => {
  h = await createHarness();
  f = await createProgramFixture(h);
});
afterAll(async () => {
  await h.close();
});

type InboxRow = { status: string; payload: unknown; payload_redacted_at: Date | string | null };
const inboxRow = async (id: number): Promise<InboxRow> => {
  const [row] = await h.ctx
    .deps()
    .em.execute<InboxRow[]>('select status, payload, payload_redacted_at from webhook_event where id = ?', [id]);
  if (!row) throw new Error(`inbox row ${id} not found`);
  return row;
};
const store = (dedupeKey: string, receivedAt: Date, payload: unknown = {}) =>
  storeWebhookEvent(h.ctx.deps(), {
    provider: 'stripe',
    programId: f.programId,
    event: { dedupeKey, eventType: 'test.event', jobs: [], ignoredReason: null },
    payload,
    receivedAt,
  });

test('inbox: a row acknowledged but never enqueued is enqueued and processed; a fresh one is left to its own job', async () => {
  const interval = h.ctx.config.SWEEP_INTERVAL_MS;
  const stale = await store('evt_sweep_stale', new Date(h.clock.now.getTime() - 2 * interval));
  const fresh = await store('evt_sweep_fresh', h.clock.now);
  expect(await sweepInbox(h.ctx)).toBe(1);
  await waitFor(async () => (await inboxRow(stale.inboxId)).status === 'processed');
  expect((await inboxRow(fresh.inboxId)).status).toBe('pending');
});

test('payloads: past the retention period the buyer data goes, the row stays; a second sweep finds nothing', async () => {
  const stored = await store('evt_sweep_payload', h.clock.now, {
    id: 'evt_sweep_payload',
    customer_email: 'buyer@example.com',
    amount_total: 4200,
  });
  expect(await sweepPayloads(h.ctx)).toBe(0);
  h.clock.advanceDays(h.ctx.config.WEBHOOK_PAYLOAD_RETENTION_DAYS + 1);
  expect(await sweepPayloads(h.ctx)).toBeGreaterThanOrEqual(1);
  const row = await inboxRow(stored.inboxId);
  expect(row.payload).toEqual({ id: 'evt_sweep_payload', customer_email: '[redacted]', amount_total: 4200 });
  expect(row.payload_redacted_at).not.toBeNull();
  expect(await sweepPayloads(h.ctx)).toBe(0);
});

test('sessions: one expired more than a day ago is deleted, a live one is kept', async () => {
  const expired = await startSession(h.ctx.deps(), { kind: 'operator', ttlMs: 60_000 });
  h.clock.advanceDays(2);
  const live = await startSession(h.ctx.deps(), { kind: 'operator', ttlMs: 86_400_000 });
  expect(await sweepSessions(h.ctx)).toBe(1);
  expect(await h.ctx.deps().em.execute('select id from session where id = ?', [expired.id])).toEqual([]);
  expect(await findSession(h.ctx.deps(), live.token)).toMatchObject({ id: live.id });
});

test('holds: a pending commission is approved once its hold period has passed, not before', async () => {
  const p = await createProgramFixture(h, { hold_period_days: 14 });
  await clickAndLead(h, p, 'holder');
  const sale = await h.request('/api/v1/track/sale', {
    body: { transaction_id: 'held', amount_cents: 1_000, customer_key: 'holder' },
    headers: bearer(p.liveKey),
  });
  expect(sale.status).toBe(200);
  h.clock.advanceDays(13);
  expect(await sweepHolds(h.ctx)).toBe(0);
  h.clock.advanceDays(2);
  expect(await sweepHolds(h.ctx)).toBe(1);
  const { commissions } = await h.admin('GET', `/programs/${p.programId}/commissions`);
  expect(commissions.find((c: { id: number }) => c.id === sale.body.commission_id)).toMatchObject({
    status: 'approved',
    credited_at: expect.any(String),
  });
});

test('outbox: a notification written but never enqueued is enqueued and delivered; a fresh one is left to its own job', async () => {
  const write = (createdAt: Date) =>
    h.ctx
      .deps()
      .em.execute<{ id: number }[]>(
        `insert into notification (program_id, kind, payload, created_at, sweeps) values (?, 'advertiser_manual_review', ?::jsonb, ?, 0) returning id`,
        [f.programId, JSON.stringify({ message: 'sweeper test' }), createdAt],
      );
  const [stale] = await write(new Date(h.clock.now.getTime() - 2 * h.ctx.config.SWEEP_INTERVAL_MS));
  const [fresh] = await write(h.clock.now);
  expect(await sweepOutbox(h.ctx)).toBe(1);
  await waitFor(() => h.sent.some((n) => n.id === stale!.id));
  expect(h.sent.some((n) => n.id === fresh!.id)).toBe(false);
});

test('inbox: a replayed old row is left to its replay job; a swept one waits a whole retry horizon before the next sweep', async () => {
  const horizon = webhookRetryHorizonMs(h.ctx.config);
  // Rows earlier tests left pending (the clock moved on) are swept and processed first.
  await sweepInbox(h.ctx);
  await waitFor(async () => {
    const [row] = await h.ctx
      .deps()
      .em.execute<{ n: number }[]>(`select count(*)::int as n from webhook_event where status = 'pending'`);
    return row?.n === 0;
  });
  const old = await store('evt_sweep_replayed', new Date(h.clock.now.getTime() - 31 * DAY_MS));
  await h.ctx
    .deps()
    .em.execute(`update webhook_event set status = 'failed', attempts = 2, error = 'gave up' where id = ?`, [
      old.inboxId,
    ]);
  // The replay puts the row back to pending (its own job is what the admin route enqueues).
  expect(await resetWebhookEventsForReplay(h.ctx.deps(), f.programId, old.inboxId)).toEqual([old.inboxId]);
  expect(await sweepInbox(h.ctx)).toBe(0);
  // Past a retry horizon after the replay the job counts as lost: the sweeper takes the row, once.
  h.clock.now = new Date(h.clock.now.getTime() + horizon + 1);
  expect(await sweepInbox(h.ctx)).toBe(1);
  expect(await sweepInbox(h.ctx)).toBe(0);
  await waitFor(async () => (await inboxRow(old.inboxId)).status === 'processed');
});
