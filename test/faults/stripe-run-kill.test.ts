/**
 * SIGKILL the worker in the middle of a scheduled Stripe Connect run: two transfers answered,
 * the third made at Stripe but its answer never used, three payouts not reached. A day later
 * (Stripe has forgotten the idempotency keys) a new worker's sweeper resumes the run: the made
 * transfer is found and confirmed, the missing ones are sent, and every payout ends `paid` with
 * exactly one transfer. Stripe is a local stand-in (test/helpers/fake-stripe-transfers.ts).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { adminCall } from '../helpers/load-fixture.ts';
import { startFakeStripe, type FakeStripe } from '../helpers/fake-stripe-transfers.ts';
import { bearer, createFaultEnv, send, sleep, waitFor, type FaultEnv } from './fault-env.ts';

const PARTNERS = 6;
let stripe: FakeStripe;
let env: FaultEnv;
beforeAll(async () => {
  stripe = await startFakeStripe();
  env = await createFaultEnv({
    roles: ['http', 'worker'],
    customers: PARTNERS,
    partners: PARTNERS,
    env: { DATA_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`, STRIPE_API_BASE: stripe.url },
  });
});
afterAll(async () => {
  await env?.close();
  await stripe?.close();
});

const admin = (method: string, path: string, body?: unknown) =>
  adminCall(env.http.url, env.adminToken, method, path, body);

/** The partner records a Stripe connected account in the portal (invite, password, payout method). */
async function connectAccount(programId: number, partnerId: number): Promise<void> {
  const invite = await admin('POST', `/programs/${programId}/partners/${partnerId}/invites`);
  const token = new URL(invite.invite_url).pathname.split('/').pop();
  const accepted = await fetch(`${env.http.url}/api/v1/partner/invites/${token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ password: 'correct horse battery' }),
  });
  const session = (await accepted.json()) as { csrf_token: string };
  const set = await send(env.http.url, '/api/v1/partner/payout-method', {
    method: 'PUT',
    body: { kind: 'stripe_connect', account_id: `acct_1Kill${partnerId}` },
    headers: { cookie: accepted.headers.get('set-cookie')!.split(';')[0]!, 'x-csrf-token': session.csrf_token },
  });
  expect(set.status).toBe(200);
}

const payouts = async (programId: number) =>
  (
    await env.db.pool.query<{ id: number; status: string; external_id: string | null; amount_cents: string }>(
      `select id, status, external_id, amount_cents from payout where program_id = $1 order by id`,
      [programId],
    )
  ).rows;

test('a Stripe run killed mid-way is resumed by the next worker: every payout paid, one transfer each', async () => {
  const f = env.fixture;
  await admin('PATCH', `/programs/${f.programId}/providers/stripe`, { api_key: 'rk_live_kill_0123456789abcdef' });
  const { rows: partners } = await env.db.pool.query<{ id: number }>(
    `select id from partner where program_id = $1 order by id`,
    [f.programId],
  );
  for (const p of partners) await connectAccount(f.programId, p.id);
  // One credited commission per partner: each seeded customer is bound to its own partner's click.
  for (let i = 0; i < PARTNERS; i++) {
    const sale = await send(env.http.url, '/api/v1/track/sale', {
      body: { transaction_id: `kill-sale-${i}`, amount_cents: 10_000 + 1_000 * i, customer_key: f.customerKey(i) },
      headers: bearer(f.liveKey),
    });
    expect(sale.status).toBe(200);
    await admin('POST', `/programs/${f.programId}/commissions/${sale.body.commission_id}/approve`, {});
  }

  // The schedule starts the run at the worker's next sweep; Stripe answers two transfers, then
  // makes the third and never answers: the worker is killed waiting for it.
  stripe.holdAfter(2);
  await admin('PATCH', `/programs/${f.programId}`, {
    payout_settings: { rail: 'stripe_connect', schedule: 'monthly', day_of_month: 1 },
  });
  await waitFor('the third transfer made at Stripe', 60_000, async () => stripe.transfers.length >= 3);
  await sleep(300);
  const worker = env.procs.find((p) => p.role === 'worker')!;
  worker.signal('SIGKILL');
  await worker.exited;

  const left = await payouts(f.programId);
  expect(left).toHaveLength(PARTNERS);
  expect(left.filter((p) => p.status === 'paid')).toHaveLength(2);
  expect(left.filter((p) => p.status === 'processing')).toHaveLength(PARTNERS - 2);
  expect(stripe.transfers).toHaveLength(3);

  // A day passes: Stripe forgets the keys, the payouts are long past the sweeper's grace period.
  stripe.holdAfter(null);
  stripe.forgetKeys();
  await env.db.pool.query(`update payout set created_at = created_at - interval '1 day' where program_id = $1`, [
    f.programId,
  ]);
  await env.start('worker');
  await waitFor('every payout paid', 60_000, async () =>
    (await payouts(f.programId)).every((p) => p.status === 'paid'),
  );

  const paid = await payouts(f.programId);
  expect(stripe.transfers).toHaveLength(PARTNERS);
  for (const p of paid) {
    const made = stripe.transfers.filter((t) => t.metadata.payout_id === String(p.id));
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ id: p.external_id, amount: Number(p.amount_cents) });
  }
  for (const p of partners) {
    const { currencies } = await admin('GET', `/programs/${f.programId}/partners/${p.id}/statement`);
    expect(currencies[0]).toMatchObject({ balance_cents: 0, reconciles: true });
  }
});
