/**
 * No silent drops: a signed provider event that records no sale (a currency we do not record, a
 * click id that matches no click, no tracker keys at all) is acknowledged as before, then stored
 * as `ignored` with its reason, logged at warn, counted per reason in the program status, and —
 * when money was paid that no partner will be credited for — put in front of the advertiser.
 */
import { describe, expect, test } from 'vitest';
import { bearer } from '../helpers/harness.ts';
import { PROVIDER_KITS } from './provider-kits.ts';
import { keysOf, newRef } from './scenario-steps.ts';
import { useWebhookHarness } from './webhook-harness.ts';
import { waitFor } from '../helpers/wait-for.ts';

describe.each(Object.values(PROVIDER_KITS).map((kit) => [kit.provider, kit] as const))('%s', (_name, kit) => {
  const w = useWebhookHarness(kit, { LOG_LEVEL: 'warn' });

  async function deliver(programId: number, event: object | string) {
    const res = await w.send(programId, event);
    expect(res.status).toBe(200);
    return w.waitForInbox(programId, res.body.id, 'ignored');
  }
  const warnings = (reason: string) =>
    w.h.logs.filter(
      (l) => l.level === 40 && l.reason === reason && l.msg === 'provider event recorded no sale or refund',
    );
  const notificationsOf = async (programId: number) =>
    (await w.list(programId, 'notifications')).filter((n) => n.kind === 'advertiser_unattributed_payment');

  test('a payment in GBP: ignored as unsupported_currency, warned, counted, the advertiser notified', async () => {
    const f = await w.newProgram();
    const customer = await w.newCustomer(f);
    const payment = kit.payment({ ref: newRef('gbp'), amountCents: 4200, keys: keysOf(f, customer) });
    const gbp = JSON.stringify(payment.event).replace(/"usd"/g, '"gbp"').replace(/"USD"/g, '"GBP"');
    const row = await deliver(f.programId, gbp);
    expect(row).toMatchObject({
      error: 'unsupported_currency',
      outcome: [expect.objectContaining({ kind: 'error', code: 'unsupported_currency' })],
    });
    expect(await w.sale(f.programId, payment.transactionId)).toBeUndefined();
    expect(warnings('unsupported_currency').some((l) => l.inboxId === row.id && l.programId === f.programId)).toBe(
      true,
    );

    const note = (await notificationsOf(f.programId))[0]!;
    expect(note).toMatchObject({
      partner_id: null,
      payload: {
        reason: 'unsupported_currency',
        provider: kit.provider,
        transaction_id: payment.transactionId,
        amount_cents: 4200,
        currency: 'GBP',
        webhook_event_id: row.id,
      },
    });
    expect(note.payload.message).toMatch(/only USD, EUR and VND are recorded/);
    // The amount for people, in the currency's own precision.
    expect(note.payload.message).toContain(`payment of 42.00 GBP (transaction ${payment.transactionId})`);
    // Delivered through the outbox like every notification.
    await waitFor(async () => w.h.sent.find((n) => n.id === note.id), 5_000);

    const status = await w.h.request('/api/v1/cli/status', { headers: bearer(f.liveKey) });
    expect(status.body.ignored_provider_events).toEqual({
      count: 1,
      last_at: expect.any(String),
      by_reason: { unsupported_currency: 1 },
    });
  });

  test('the API keeps answering 422 unsupported_currency for the same sale', async () => {
    const f = await w.newProgram();
    const customer = await w.newCustomer(f);
    const res = await w.h.request('/api/v1/track/sale', {
      body: { transaction_id: newRef('api'), amount_cents: 4200, currency: 'GBP', customer_key: customer.customerKey },
      headers: bearer(f.liveKey),
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('unsupported_currency');
  });

  test('a click id that matches no click: ignored as unknown_click_id, warned, the advertiser notified', async () => {
    const f = await w.newProgram();
    const payment = kit.payment({
      ref: newRef('uc'),
      amountCents: 5000,
      keys: { clickId: 'click-from-elsewhere', customerKey: `c-${newRef('k')}`, programId: f.programId },
    });
    const row = await deliver(f.programId, payment.event);
    expect(row.error).toBe('unknown_click_id');
    expect(warnings('unknown_click_id').some((l) => l.inboxId === row.id)).toBe(true);
    const note = (await notificationsOf(f.programId))[0]!;
    expect(note.payload).toMatchObject({
      reason: 'unknown_click_id',
      click_id: 'click-from-elsewhere',
      amount_cents: 5000,
      currency: 'USD',
    });
    expect(note.payload.message).toMatch(/matches no click of this program/);
    expect(note.payload.message).toContain('payment of 50.00 USD (transaction');
  });

  test('no tracker keys, and keys of another program: ignored with their reasons, counted apart, no notification', async () => {
    const f = await w.newProgram();
    await deliver(f.programId, kit.payment({ ref: newRef('nk'), amountCents: 5000, keys: null }).event);
    await deliver(f.programId, kit.payment({ ref: newRef('nk'), amountCents: 5000, keys: null }).event);
    const other = await deliver(
      f.programId,
      kit.payment({
        ref: newRef('pm'),
        amountCents: 5000,
        keys: { clickId: 'x', customerKey: 'y', programId: f.programId + 1000 },
      }).event,
    );
    expect(other.error).toBe('program_mismatch');
    expect(warnings('program_mismatch').some((l) => l.inboxId === other.id)).toBe(true);
    const status = await w.h.request('/api/v1/cli/status', { headers: bearer(f.liveKey) });
    expect(status.body.ignored_provider_events.by_reason).toEqual({ no_tracker_metadata: 2, program_mismatch: 1 });
    expect(await notificationsOf(f.programId)).toEqual([]);
  });

  test('unknown_customer, then the lead is tracked: replaying the event by id records the sale', async () => {
    const f = await w.newProgram();
    const customerKey = `late-${newRef('k')}`;
    const payment = kit.payment({
      ref: newRef('late'),
      amountCents: 6000,
      keys: { customerKey, programId: f.programId },
    });
    const row = await deliver(f.programId, payment.event);
    expect(row.error).toBe('unknown_customer');
    await w.newCustomer(f, customerKey);
    expect(await w.h.admin('POST', `/programs/${f.programId}/webhook-events/replay`, { id: row.id })).toEqual({
      replayed: [row.id],
    });
    const processed = await w.waitForInbox(f.programId, row.id, 'processed');
    expect(await w.sale(f.programId, payment.transactionId)).toMatchObject({
      partner: f.partnerId,
      amount_cents: 6000,
    });
    // Replaying it once more changes nothing: a processed row keeps its outcome and attempts.
    expect(processed.attempts).toBe(2);
    expect(await w.h.admin('POST', `/programs/${f.programId}/webhook-events/replay`, { id: row.id })).toEqual({
      replayed: [],
    });
    const rows = await w.list(f.programId, 'webhook-events');
    expect(rows.find((r) => r.id === row.id)).toMatchObject({
      status: 'processed',
      outcome: processed.outcome,
      attempts: processed.attempts,
    });
  });
});
