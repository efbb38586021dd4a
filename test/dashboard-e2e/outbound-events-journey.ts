/**
 * The dashboard walkthrough's outbound events journey (dashboard-walkthrough.test.ts runs it in
 * its Chromium): the operator adds an endpoint pointing at a local receiver (its secret shown
 * once), a sale is delivered there signed with that secret, the delivery log shows it, a replay
 * sends the same event again; rotation, expiring the old secret, disabling and enabling; axe-core
 * (no violation of any impact) on the page in each state.
 */
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { expect } from 'vitest';
import { ADMIN_TOKEN, bearer, clickAndLead, createProgramFixture, type Harness } from '../helpers/harness.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { expectAccessible, shot, type Receiver } from './page-checks.ts';

export async function outboundEventsJourney(o: {
  h: Harness;
  base: string;
  /** A fresh page, not signed in. */
  op: Page;
  receiver: Receiver;
  tab(page: Page, name: string): Promise<void>;
  shots: string | undefined;
}): Promise<void> {
  const { h, base, op, receiver, tab, shots } = o;
  const f = await createProgramFixture(h);
  await op.goto(`${base}/dashboard/sign-in`);
  await op.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await op.getByRole('button', { name: 'Sign in' }).click();
  await op.getByRole('heading', { name: 'Programs' }).waitFor();
  await op.goto(`${base}/dashboard/programs/${f.programId}`);
  await tab(op, 'Outbound events');
  await op.getByRole('cell', { name: /^No endpoint yet/ }).waitFor();
  await expectAccessible(op, 'outbound events, no endpoint', { strict: true });

  // An endpoint for sales only, at the receiver: its signing secret is shown once.
  await op.getByRole('textbox', { name: /^Endpoint URL/ }).fill(receiver.url);
  await op.getByRole('checkbox', { name: /^All, including/ }).uncheck();
  await op.getByRole('checkbox', { name: /^sale\.created/ }).check();
  await op.getByRole('button', { name: 'Add endpoint' }).click();
  const secret = (await op.getByTestId('new-secret').textContent())?.trim() ?? '';
  expect(secret).toMatch(/^whsec_/);
  const row = op.locator('tr[data-endpoint-id]');
  const endpointId = Number(await row.getAttribute('data-endpoint-id'));
  await expect.poll(() => row.textContent()).toContain('sale.created');
  await op.getByRole('button', { name: 'I stored it, hide it' }).click();

  // A sale: the receiver gets it, signed with that secret.
  await clickAndLead(h, f, 'events-buyer');
  const sale = await h.request('/api/v1/track/sale', {
    body: { transaction_id: 'evt-e2e-1', amount_cents: 4_900, currency: 'USD', customer_key: 'events-buyer' },
    headers: bearer(f.liveKey),
  });
  expect(sale.status).toBe(200);
  const first = await waitFor(() => receiver.received[0]);
  const signed = (r: typeof first) => new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
  expect(signed(first)).toMatchObject({ type: 'sale.created', data: { transaction_id: 'evt-e2e-1' } });
  const webhookId = String(first.headers['webhook-id']);

  // The delivery log shows it delivered; a replay sends the same event again.
  await op.getByRole('button', { name: `Deliveries of endpoint ${endpointId}` }).click();
  const delivery = op.getByRole('region', { name: `Deliveries of endpoint ${endpointId}` }).locator('tbody tr');
  const refreshed = async (testId: string) => {
    await op.getByRole('button', { name: 'Refresh' }).click();
    await op.waitForLoadState('networkidle');
    return delivery.getByTestId(testId).textContent();
  };
  await expect.poll(() => refreshed('delivery-status'), { timeout: 15_000 }).toBe('delivered');
  const logged = (await delivery.textContent()) ?? '';
  for (const part of ['sale.created', webhookId, '200', 'thanks']) expect(logged).toContain(part);
  expect(await delivery.getByTestId('delivery-attempts').textContent()).toBe('1');
  const deliveryId = Number(await delivery.getAttribute('data-delivery-id'));
  await op.getByRole('button', { name: `Replay delivery ${deliveryId}` }).click();
  await op
    .getByRole('status')
    .filter({ hasText: `Delivery ${deliveryId}` })
    .waitFor();
  const again = await waitFor(() => receiver.received[1]);
  expect(again.headers['webhook-id']).toBe(webhookId);
  expect(again.body).toBe(first.body);
  expect(signed(again)).toMatchObject({ type: 'sale.created' });
  await expect.poll(() => refreshed('delivery-attempts'), { timeout: 15_000 }).toBe('2');
  expect(await delivery.getByTestId('delivery-status').textContent()).toBe('delivered');
  await expectAccessible(op, 'outbound events with the delivery log', { strict: true });
  await shot(shots, op, 'outbound-events');

  // Rotation (a second secret, shown once), expiring the old one, disabling and enabling.
  await op.getByRole('button', { name: `Rotate secret of endpoint ${endpointId}` }).click();
  const rotated = (await op.getByTestId('new-secret').textContent())?.trim() ?? '';
  expect(rotated).toMatch(/^whsec_/);
  expect(rotated).not.toBe(secret);
  await row.getByText('Rotating: two secrets sign.').waitFor();
  await op.getByRole('button', { name: 'I stored it, hide it' }).click();
  await op.getByRole('button', { name: `Expire old secret of endpoint ${endpointId}` }).click();
  await op.getByRole('status').filter({ hasText: 'only the new secret signs' }).waitFor();
  await op.getByRole('button', { name: `Disable endpoint ${endpointId}` }).click();
  await expect.poll(() => row.getByTestId('endpoint-state').textContent()).toMatch(/disabled\s+by you/);
  await expectAccessible(op, 'outbound events, endpoint disabled', { strict: true });
  await op.getByRole('button', { name: `Enable endpoint ${endpointId}` }).click();
  await expect.poll(() => row.getByTestId('endpoint-state').textContent()).toMatch(/^\s*active/);
  // Shown once: after a reload neither secret is anywhere in the page.
  await op.reload();
  await row.waitFor();
  const html = await op.content();
  expect(html).not.toContain(secret);
  expect(html).not.toContain(rotated);
}
