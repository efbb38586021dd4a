import { beforeAll, describe, expect, test } from 'vitest';
import { isDataError } from '../../src/core/db/data-error.ts';
import { AppError } from '../../src/core/shared/errors.ts';
import { buildClickJob } from '../../src/core/jobs/click-job.ts';
import { buildRefundJob } from '../../src/core/jobs/refund-job.ts';
import { buildSaleJob } from '../../src/core/jobs/sale-job.ts';
import { buildWebhookJob } from '../../src/core/jobs/webhook-job.ts';
import type { ProviderJob } from '../../src/core/jobs/normalised-event.ts';
import { recordClicks } from '../../src/core/attribution/record-click.ts';
import { storeWebhookEvent } from '../../src/core/webhooks/webhook-inbox.ts';
import { createMicroBatcher } from '../../src/core/shared/micro-batch.ts';
import { createTrackProcessor } from '../../src/workers/track-processor.ts';
import { createWebhookProcessor } from '../../src/workers/webhook-processor.ts';
import { clickAndLead, createProgramFixture, type Fixture, useHarness } from '../helpers/harness.ts';
import { refuseParking } from '../helpers/refuse-parking.ts';

// Workers record the click and webhook jobs they hold together; each job keeps its own outcome.
// The processors are driven directly (as the queue does, one call per job, several at a time)
// with a long linger so that the calls below always form one batch.
const h = useHarness();
let f: Fixture;

beforeAll(async () => {
  f = await createProgramFixture(h);
});

const first = { attempt: 1, final: false };

async function inboxRow(id: number) {
  const [row] = await h.ctx.db.em
    .fork()
    .execute(`select status, attempts, error, outcome from webhook_event where id = ?`, [id]);
  return row as { status: string; attempts: number; error: string | null; outcome: unknown };
}

async function store(dedupeKey: string, jobs: ProviderJob[]): Promise<number> {
  const stored = await storeWebhookEvent(h.ctx.deps(), {
    provider: 'stripe',
    programId: f.programId,
    event: { dedupeKey, eventType: 'checkout.session.completed', jobs, ignoredReason: null },
    payload: {},
    receivedAt: h.clock.now,
  });
  return stored.inboxId;
}

const providerSale = (transactionId: string, customerKey: string) =>
  buildSaleJob({
    origin: 'provider',
    programId: f.programId,
    test: false,
    transactionId,
    amountCents: 10_000,
    currency: 'USD',
    provider: 'stripe',
    customerKey,
    receivedAt: h.clock.now.toISOString(),
  });

describe('micro-batcher', () => {
  test('groups calls up to the batch size and answers each with its own result', async () => {
    const batches: number[][] = [];
    const double = createMicroBatcher<number, number>(
      async (items) => {
        batches.push(items);
        return items.map((n) =>
          n < 0 ? { ok: false, error: new Error(`negative ${n}`) } : { ok: true, value: 2 * n },
        );
      },
      { maxSize: 3, lingerMs: 20 },
    );
    const out = await Promise.allSettled([double(1), double(-2), double(3), double(4)]);
    expect(batches).toEqual([[1, -2, 3], [4]]);
    expect(out.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual([
      2,
      'negative -2',
      6,
      8,
    ]);
  });

  test('a batch that fails as a whole fails each of its calls with that error', async () => {
    const run = createMicroBatcher<number, number>(
      async () => {
        throw new Error('database unreachable');
      },
      { maxSize: 8, lingerMs: 0 },
    );
    const out = await Promise.allSettled([run(1), run(2)]);
    expect(out.map((o) => o.status === 'rejected' && (o.reason as Error).message)).toEqual([
      'database unreachable',
      'database unreachable',
    ]);
  });
});

describe('webhook batches', () => {
  test('rows run together: the sales are recorded, a row whose job the database refuses fails alone with its reason', async () => {
    await clickAndLead(h, f, 'batch-c1');
    await clickAndLead(h, f, 'batch-c2');
    const a = await store('evt_batch_a', [providerSale('pi_batch_a', 'batch-c1')]);
    const b = await store('evt_batch_b', [providerSale('pi_batch_b', 'batch-c2')]);
    const bad = await store('evt_batch_r', [
      buildRefundJob({
        origin: 'provider',
        programId: f.programId,
        transactionId: 'pi_batch_missing',
        amount: { type: 'per_refund', cents: 100 },
        test: false,
        receivedAt: h.clock.now.toISOString(),
      }),
    ]);
    const handle = createWebhookProcessor(h.ctx, { maxSize: 8, lingerMs: 100 });
    // The refund's sale is missing and the database refuses to park it (a real failure, not a
    // rejection of the event): its row fails, the others do not.
    const allowParking = await refuseParking(h.ctx.db.em.fork());
    const out = await Promise.allSettled([a, bad, b].map((id) => handle(buildWebhookJob(id), first))).finally(
      allowParking,
    );

    expect(out[0]).toMatchObject({
      status: 'fulfilled',
      value: { status: 'processed', outcome: [expect.objectContaining({ kind: 'attributed' })] },
    });
    expect(out[2]).toMatchObject({
      status: 'fulfilled',
      value: { status: 'processed', outcome: [expect.objectContaining({ kind: 'attributed' })] },
    });
    expect(out[1]?.status).toBe('rejected');
    const reason = ((out[1] as PromiseRejectedResult).reason as Error).message;
    expect(reason).toMatch(/parking refunds is unavailable/);

    expect(await inboxRow(a)).toMatchObject({ status: 'processed', attempts: 1, error: null });
    expect(await inboxRow(b)).toMatchObject({ status: 'processed', attempts: 1, error: null });
    // Still pending for the queue's retry, with the attempt and its reason recorded.
    expect(await inboxRow(bad)).toMatchObject({ status: 'pending', attempts: 1, error: reason });
    const sales = (await h.ctx.db.em
      .fork()
      .execute(`select transaction_id from sale where program_id = ? and transaction_id like 'pi_batch_%' order by 1`, [
        f.programId,
      ])) as Array<{ transaction_id: string }>;
    expect(sales.map((s) => s.transaction_id)).toEqual(['pi_batch_a', 'pi_batch_b']);

    // Running a batch again (a retry after a worker died) records nothing twice.
    const again = await Promise.allSettled([a, b].map((id) => handle(buildWebhookJob(id), first)));
    expect(again.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(await inboxRow(a)).toMatchObject({ status: 'processed', attempts: 1 });
  });

  test('the same row twice in one batch (a replay beside its first job) runs once', async () => {
    await clickAndLead(h, f, 'batch-c3');
    const id = await store('evt_batch_twice', [providerSale('pi_batch_twice', 'batch-c3')]);
    const handle = createWebhookProcessor(h.ctx, { maxSize: 8, lingerMs: 100 });
    const out = await Promise.all([handle(buildWebhookJob(id), first), handle(buildWebhookJob(id), first)]);
    expect(out).toEqual([out[0], out[0]]);
    expect(await inboxRow(id)).toMatchObject({ status: 'processed', attempts: 1 });
  });
});

describe('inbox writes', () => {
  const event = (dedupeKey: string, programId = f.programId) =>
    storeWebhookEvent(h.ctx.deps(), {
      provider: 'stripe',
      programId,
      event: { dedupeKey, eventType: 'test.event', jobs: [], ignoredReason: null },
      payload: { dedupeKey },
      receivedAt: h.clock.now,
    });

  test('events stored together: one row each, a redelivery in the same batch or after answers the first row', async () => {
    const before = await event('evt_ins_0');
    const out = await Promise.all([event('evt_ins_1'), event('evt_ins_2'), event('evt_ins_1'), event('evt_ins_0')]);
    expect(out.map((o) => o.duplicate)).toEqual([false, false, true, true]);
    expect(out[2]?.inboxId).toBe(out[0]?.inboxId);
    expect(out[3]?.inboxId).toBe(before.inboxId);
    expect(new Set(out.map((o) => o.inboxId)).size).toBe(3);
    const rows = (await h.ctx.db.em
      .fork()
      .execute(`select id, payload from webhook_event where dedupe_key like 'evt_ins_%' order by id`)) as Array<{
      id: number;
      payload: { dedupeKey: string };
    }>;
    expect(rows.map((r) => r.payload.dedupeKey)).toEqual(['evt_ins_0', 'evt_ins_1', 'evt_ins_2']);
  });

  test('a batch with a row the database refuses: the others are stored, that one fails', async () => {
    const out = await Promise.allSettled([event('evt_ins_3'), event('evt_ins_4', 2_000_000), event('evt_ins_5')]);
    expect(out.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const rows = await h.ctx.db.em
      .fork()
      .execute(`select dedupe_key from webhook_event where dedupe_key in ('evt_ins_3', 'evt_ins_4', 'evt_ins_5')`);
    expect(rows).toHaveLength(2);
  });
});

describe('click batches', () => {
  const click = (aff: string, extra: Partial<Parameters<typeof buildClickJob>[0]> = {}) =>
    buildClickJob({
      partnerCode: aff,
      affiliateUrl: `https://shop.example/?aff=${aff}`,
      receivedAt: h.clock.now.toISOString(),
      ...extra,
    });
  const clickRows = async (ids: string[]) =>
    (await h.ctx.db.em
      .fork()
      .execute(
        `select id, partner_id, visitor_id from click where id in (${ids.map(() => '?').join(',')})`,
        ids,
      )) as Array<{
      id: string;
      partner_id: number;
      visitor_id: string | null;
    }>;

  test('recordClicks: good clicks are recorded, an unknown partner and an unstorable value fail alone', async () => {
    const out = await recordClicks(h.ctx.deps(), [
      click(f.partnerCode, { visitorId: 'v1' }),
      click('nobody-here'),
      click(f.partnerCode, { visitorId: 'x'.repeat(300) }),
      click(f.partnerCode, { visitorId: 'v2' }),
    ]);
    expect(out[1]).toMatchObject({ ok: false, error: expect.any(AppError) });
    expect(((out[1] as { error: AppError }).error as AppError).code).toBe('not_found');
    expect(out[2]?.ok).toBe(false);
    expect(isDataError((out[2] as { error: unknown }).error)).toBe(true);
    const ids = [out[0], out[3]].map((o) => (o?.ok ? o.value.clickId : ''));
    expect(new Set(ids).size).toBe(2);
    const rows = await clickRows(ids);
    expect(rows.map((r) => r.visitor_id).sort()).toEqual(['v1', 'v2']);
    expect(rows.every((r) => r.partner_id === f.partnerId)).toBe(true);
  });

  test('through the track worker: each job of a batch gets its own answer', async () => {
    const other = await h.admin('POST', `/programs/${f.programId}/partners`, { code: 'batch-second', name: 'Two' });
    const existing = await clickAndLead(h, f, 'batch-c4');
    const handle = createTrackProcessor(h.ctx, { maxSize: 16, lingerMs: 100 });
    const out = (await Promise.all(
      [
        click(f.partnerCode),
        click('nobody-either'),
        click('batch-second', { existingClickId: existing }),
        click(f.partnerCode, { existingClickId: 'not-a-click-of-this-program' }),
        click(f.partnerCode, { referrerUrl: 'x'.repeat(10), visitorId: 'y'.repeat(300) }),
      ].map((job) => handle(job, first)),
    )) as Array<{ ok: boolean; result?: { clickId: string; partnerCode: string }; error?: { code: string } }>;

    expect(out[0]).toMatchObject({ ok: true, result: { partnerCode: f.partnerCode } });
    expect(out[1]).toMatchObject({ ok: false, error: { code: 'not_found' } });
    // Last-partner attribution: the existing click now belongs to the second partner.
    expect(out[2]).toMatchObject({ ok: true, result: { clickId: existing, partnerCode: 'batch-second' } });
    expect((await clickRows([existing]))[0]?.partner_id).toBe(other.partner.id);
    // An unknown existing click id records a new click.
    expect(out[3]).toMatchObject({ ok: true });
    expect(out[3]?.result?.clickId).not.toBe('not-a-click-of-this-program');
    expect(out[4]).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    const recorded = await clickRows([out[0]!.result!.clickId, out[3]!.result!.clickId]);
    expect(recorded).toHaveLength(2);
  });

  test('an unknown referral code is not remembered: a partner created a moment later is found', async () => {
    const [before] = await recordClicks(h.ctx.deps(), [click('batch-late')]);
    expect(before).toMatchObject({ ok: false, error: expect.any(AppError) });
    const { partner } = await h.admin('POST', `/programs/${f.programId}/partners`, {
      code: 'batch-late',
      name: 'Late',
    });
    const [after] = await recordClicks(h.ctx.deps(), [click('batch-late')]);
    expect(after).toMatchObject({ ok: true, value: { partnerCode: 'batch-late' } });
    const [again] = await recordClicks(h.ctx.deps(), [click('batch-late')]);
    expect(again?.ok && (await clickRows([again.value.clickId]))[0]?.partner_id).toBe(partner.id);
  });
});
