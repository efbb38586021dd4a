/**
 * The dashboard walkthrough's webhook event log journey (dashboard-walkthrough.test.ts runs it in
 * its Chromium, with the operator signed in on the program): a Stripe refund delivered before its
 * sale is parked; the sale, arriving before the visitor's signup, is ignored with its reason; the
 * log shows both with a payload; replaying the ignored sale records it and applies the parked
 * refund; an event kept failing (parking refused) is replayed by hand once the cause is gone.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { Harness } from '../helpers/harness.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { refuseParking } from '../helpers/refuse-parking.ts';
import { signupOnPage } from '../tracker-e2e/e2e-helpers.ts';
import { checkoutSession, signStripe, stripeEvent, stripeRefund } from '../providers/fixtures/stripe.ts';
import { expectAccessible, shot } from './page-checks.ts';

/** Where and how the program's Stripe deliveries are posted. */
type Delivery = { h: Harness; base: string; secret: string };

async function postStripe(o: Delivery, programId: number, event: object): Promise<number> {
  const { h, base, secret } = o;
  const body = JSON.stringify(event);
  const r = await fetch(`${base}/api/v1/webhooks/stripe/${programId}`, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'stripe-signature': signStripe(body, {
        timestamp: Math.floor(h.clock.now.getTime() / 1000),
        secret,
      }),
    },
  });
  const json = await r.json();
  expect(r.status, JSON.stringify(json)).toBe(200);
  return json.id as number;
}

async function eventStatus(h: Harness, programId: number, id: number): Promise<string> {
  return (await h.admin('GET', `/programs/${programId}/webhook-events/${id}`)).webhook_event.status;
}

/** Replays one event from the event log (listed under `status`) and waits until the log shows it processed. */
async function replayFromLog(page: Page, status: string, inboxId: number): Promise<void> {
  await page.getByRole('combobox', { name: /^Status/ }).selectOption(status);
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByRole('button', { name: `Replay event ${inboxId}` }).click();
  await page.getByRole('status').filter({ hasText: 'Replaying 1 event' }).waitFor();
  await page.getByRole('combobox', { name: /^Status/ }).selectOption('');
  await expect
    .poll(
      async () => {
        await page.getByRole('button', { name: 'Filter' }).click();
        return page.locator(`tr[data-event-id="${inboxId}"]`).getByTestId('event-status').textContent();
      },
      { timeout: 15_000 },
    )
    .toBe('processed');
}

/** Clicks a tab of the dashboard's program navigation. */
export async function tab(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Program pages' }).getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1 }).waitFor();
}

export async function webhookLogJourney(
  o: Delivery & {
    /** The operator's page, signed in, on the program. */
    op: Page;
    /** The visitor who came through the partner's link (not signed up yet). */
    visitor: Page;
    programId: number;
    shots: string | undefined;
  },
): Promise<void> {
  const { h, op, visitor, programId } = o;
  // A refund that Stripe delivers before the sale: parked until the sale is recorded.
  const refundEvent = stripeEvent(
    'refund.updated',
    stripeRefund({
      id: 're_e2e1',
      payment_intent: 'pi_e2e1',
      charge: 'ch_e2e1',
      amount: 2_500,
      metadata: { refund_reason: 'Arrived damaged' },
    }),
    { id: 'evt_e2e_refund' },
  );
  const refundInbox = await postStripe(o, programId, refundEvent);
  await waitFor(async () => (await eventStatus(h, programId, refundInbox)) === 'processed', 15_000);

  // The sale: a signed Stripe checkout.session.completed with the customer key.
  const saleEvent = stripeEvent(
    'checkout.session.completed',
    checkoutSession({
      id: 'cs_e2e1',
      amount_subtotal: 10_000,
      amount_total: 10_000,
      payment_intent: 'pi_e2e1',
      livemode: true,
      metadata: { tracker_customer_key: 'customer-42', program_id: String(programId) },
      total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    }),
    { id: 'evt_e2e_sale' },
  );
  // The payment arrives before the visitor's signup reached the service: no such customer yet,
  // so the event is ignored with its reason.
  const saleInbox = await postStripe(o, programId, saleEvent);
  await waitFor(async () => (await eventStatus(h, programId, saleInbox)) === 'ignored', 15_000);
  await signupOnPage(visitor, 'customer-42', 'customer@example.com');

  // The event log shows both, with the payload of one event.
  await tab(op, 'Webhook events');
  const saleRow = op.locator(`tr[data-event-id="${saleInbox}"]`);
  await expect.poll(() => saleRow.getByTestId('event-status').textContent()).toBe('ignored');
  await expect
    .poll(() => op.locator(`tr[data-event-id="${refundInbox}"]`).getByTestId('event-status').textContent())
    .toBe('processed');
  await saleRow.getByRole('button', { name: `Payload of event ${saleInbox}` }).click();
  const payload = JSON.parse((await op.getByTestId('payload').textContent()) ?? '{}');
  expect(payload).toMatchObject({
    id: 'evt_e2e_sale',
    type: 'checkout.session.completed',
    data: { object: { id: 'cs_e2e1' } },
  });
  await expectAccessible(op, 'event log');

  // The ignored payment is replayed from the log: the sale is recorded now, and the parked refund
  // is applied with it.
  await replayFromLog(op, 'ignored', saleInbox);
  await shot(o.shots, op, 'event-log');

  // An event that keeps failing (the database refuses to park its refund) is pending, retrying;
  // once the cause is gone, the operator replays it from the log rather than waiting.
  const allowParking = await refuseParking(h.ctx.db.em.fork());
  const stuckInbox = await postStripe(
    o,
    programId,
    stripeEvent(
      'refund.updated',
      stripeRefund({ id: 're_e2e_late', payment_intent: 'pi_e2e_late', charge: 'ch_e2e_late', amount: 1_000 }),
      { id: 'evt_e2e_stuck' },
    ),
  );
  await waitFor(async () => {
    const e = (await h.admin('GET', `/programs/${programId}/webhook-events/${stuckInbox}`)).webhook_event;
    return e.status === 'pending' && e.attempts >= 1;
  }, 15_000);
  await allowParking();
  await replayFromLog(op, 'pending', stuckInbox);
}
