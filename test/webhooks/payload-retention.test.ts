/**
 * Payload retention end to end: the running sweeper removes the buyer's personal data from raw
 * payloads older than WEBHOOK_PAYLOAD_RETENTION_DAYS, leaves younger ones alone, and a redacted
 * event still replays (replay runs the stored normalised jobs, never the payload). Stripe stands
 * for every provider here: the sweeper and the rules are provider-blind, and
 * test/core/redact-personal-data.test.ts runs the rules on each provider's payloads.
 */
import { expect, test } from 'vitest';
import { stripeKit } from './kits/stripe-kit.ts';
import { newRef } from './scenario-steps.ts';
import { useWebhookHarness } from './webhook-harness.ts';
import { waitFor } from '../helpers/wait-for.ts';

const w = useWebhookHarness(stripeKit);

const BUYER = {
  name: 'Ada Lovelace',
  email: 'ada.lovelace@example.com',
  phone: '+44 20 7946 0000',
  address: {
    line1: '12 Analytical Row',
    line2: null,
    city: 'London',
    postal_code: 'N1 9GU',
    state: null,
    country: 'GB',
  },
};
const PERSONAL = ['Ada Lovelace', 'ada.lovelace@example.com', '7946 0000', 'Analytical Row', 'N1 9GU'];

/** A Stripe checkout as Stripe sends it: the buyer's details beside the tracker metadata. */
function checkoutWithBuyer(ref: string, keys: { customerKey: string; clickId?: string; programId: number }) {
  const { event, transactionId } = stripeKit.payment({ ref, amountCents: 10000, keys });
  const session = (event.data as { object: Record<string, unknown> }).object;
  Object.assign(session, {
    customer_details: { ...BUYER, tax_exempt: 'none', tax_ids: [] },
    customer_email: BUYER.email,
    shipping_details: { name: BUYER.name, address: BUYER.address },
  });
  return { event, transactionId };
}

const detail = async (programId: number, id: number) =>
  (await w.h.admin('GET', `/programs/${programId}/webhook-events/${id}`)).webhook_event;

test('after the retention period the payload loses the buyer’s personal data, replay still works; a younger event is untouched', async () => {
  expect(w.h.ctx.config.WEBHOOK_PAYLOAD_RETENTION_DAYS).toBe(30);
  const f = await w.newProgram();
  // Only a customer key nobody tracked yet: the sale is ignored (`unknown_customer`) until the
  // lead is tracked and the event replayed, the documented replay case.
  const customerKey = `late-${newRef('k')}`;
  const old = checkoutWithBuyer(newRef('old'), { customerKey, programId: f.programId });
  const oldRes = await w.send(f.programId, old.event);
  expect(await w.waitForInbox(f.programId, oldRes.body.id, 'ignored')).toMatchObject({ error: 'unknown_customer' });
  const before = await detail(f.programId, oldRes.body.id);
  for (const s of PERSONAL) expect(JSON.stringify(before.payload)).toContain(s);
  expect(before.payload_redacted_at).toBeNull();

  const young = checkoutWithBuyer(newRef('young'), { customerKey: `young-${newRef('k')}`, programId: f.programId });
  const youngRes = await w.send(f.programId, young.event);
  await w.waitForInbox(f.programId, youngRes.body.id, 'ignored');
  // The old event was received 31 days before the (harness) clock's now; the young one 29 days.
  await w.h.ctx.db.em
    .fork()
    .execute(
      `update webhook_event set received_at = received_at - interval '31 days' where id = ${Number(oldRes.body.id)}`,
    );
  await w.h.ctx.db.em
    .fork()
    .execute(
      `update webhook_event set received_at = received_at - interval '29 days' where id = ${Number(youngRes.body.id)}`,
    );

  // The worker's sweeper (every SWEEP_INTERVAL_MS) redacts the old row.
  const redacted = await waitFor(async () => {
    const row = await detail(f.programId, oldRes.body.id);
    return row.payload_redacted_at !== null && row;
  });
  const stored = JSON.stringify(redacted.payload);
  for (const s of PERSONAL) expect(stored).not.toContain(s);
  expect(stored).not.toMatch(/@[\w-]+\.[a-z]/i);
  expect(redacted.payload).toMatchObject({
    type: 'checkout.session.completed',
    data: {
      object: {
        id: expect.stringMatching(/^cs_/),
        payment_intent: old.transactionId,
        amount_total: 10000,
        metadata: { tracker_customer_key: customerKey },
        customer_details: { email: '[redacted]', name: '[redacted]', address: '[redacted]' },
      },
    },
  });
  // Nothing else on the row changed, and the normalised jobs never held the buyer's data.
  expect(redacted).toMatchObject({ status: 'ignored', error: 'unknown_customer', normalised: before.normalised });
  for (const s of PERSONAL) expect(JSON.stringify(redacted.normalised)).not.toContain(s);

  // A younger event keeps its payload as received, through further sweeps.
  await new Promise((resolve) => setTimeout(resolve, 3 * w.h.ctx.config.SWEEP_INTERVAL_MS));
  const youngRow = await detail(f.programId, youngRes.body.id);
  expect(youngRow.payload_redacted_at).toBeNull();
  expect(youngRow.payload).toEqual(young.event);

  // Replay of the redacted event: the lead is tracked now, and the sale is attributed.
  await w.newCustomer(f, customerKey);
  expect(await w.h.admin('POST', `/programs/${f.programId}/webhook-events/replay`, { id: oldRes.body.id })).toEqual({
    replayed: [oldRes.body.id],
  });
  const replayed = await w.waitForInbox(f.programId, oldRes.body.id, 'processed');
  expect(replayed.outcome).toEqual([expect.objectContaining({ kind: 'attributed' })]);
  const sale = await w.sale(f.programId, old.transactionId);
  expect(sale).toMatchObject({ amount_cents: 10000 });
  expect(await w.commissionOf(f.programId, sale!.id)).toMatchObject({ amount_cents: 1000 });
  // Redacted once: its redaction time does not move on later sweeps.
  expect((await detail(f.programId, oldRes.body.id)).payload_redacted_at).toBe(redacted.payload_redacted_at);
});

test('the inbox list leaves raw payloads out; one event’s detail has it', async () => {
  const f = await w.newProgram();
  const event = checkoutWithBuyer(newRef('list'), { customerKey: `list-${newRef('k')}`, programId: f.programId });
  const res = await w.send(f.programId, event.event);
  await w.waitForInbox(f.programId, res.body.id, 'ignored');
  const [row] = await w.inbox(f.programId);
  expect(row).toMatchObject({
    id: res.body.id,
    event_type: 'checkout.session.completed',
    normalised: expect.any(Object),
  });
  expect(row).not.toHaveProperty('payload');
  expect(JSON.stringify(row)).not.toContain(BUYER.email);
  expect((await detail(f.programId, res.body.id)).payload).toEqual(event.event);
});
