import { beforeAll, expect, test } from 'vitest';
import { bearer, clickAndLead, useHarness, createProgramFixture, type Fixture } from '../helpers/harness.ts';

// Real fault injection (no mocks): the commission table is made unwritable, so the sale's
// transaction fails; the job is retried, then the API answers the fixed 500 and nothing is half-written.
const h = useHarness();
let f: Fixture;
beforeAll(async () => {
  f = await createProgramFixture(h);
  await clickAndLead(h, f, 'alice');
});

test('500 internal_error when commission creation fails; no sale without its commission', async () => {
  const em = h.ctx.db.em.fork();
  await em.execute('alter table commission add constraint broken_for_test check (amount_cents < 0)');
  try {
    const r = await h.request('/api/v1/track/sale', {
      body: { transaction_id: 'boom', amount_cents: 1000, customer_key: 'alice' },
      headers: bearer(f.liveKey),
    });
    expect(r.status).toBe(500);
    expect(r.body).toEqual({
      data: null,
      error: {
        status: 500,
        name: 'InternalServerError',
        message: 'An internal error occurred; it has been logged.',
        details: {},
        code: 'internal_error',
      },
    });
    expect(JSON.stringify(r.body)).not.toMatch(/constraint|commission_/);
    expect((await h.admin('GET', `/programs/${f.programId}/sales`)).sales).toHaveLength(0);
  } finally {
    await em.execute('alter table commission drop constraint broken_for_test');
  }
  const again = await h.request('/api/v1/track/sale', {
    body: { transaction_id: 'boom', amount_cents: 1000, customer_key: 'alice' },
    headers: bearer(f.liveKey),
  });
  expect(again.status).toBe(200);
});

test('500 internal_error when the reversal fails; the refund is not half-applied', async () => {
  const s = await h.request('/api/v1/track/sale', {
    body: { transaction_id: 'boom-2', amount_cents: 1000, customer_key: 'alice' },
    headers: bearer(f.liveKey),
  });
  const em = h.ctx.db.em.fork();
  await em.execute('alter table refund add constraint broken_for_test check (applied_cents < 0)');
  try {
    const r = await h.request('/api/v1/track/refund', {
      body: { transaction_id: 'boom-2', refund_amount_cents: 500 },
      headers: bearer(f.liveKey),
    });
    expect(r.status).toBe(500);
    expect(r.body.error.code).toBe('internal_error');
  } finally {
    await em.execute('alter table refund drop constraint broken_for_test');
  }
  const { commissions } = await h.admin('GET', `/programs/${f.programId}/commissions`);
  expect(commissions.find((c: any) => c.id === s.body.commission_id)).toMatchObject({
    status: 'pending',
    reversed_cents: 0,
  });
  const { sales } = await h.admin('GET', `/programs/${f.programId}/sales`);
  expect(sales.find((x: any) => x.id === s.body.sale_id).refunded_cents).toBe(0);
});
