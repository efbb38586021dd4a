/**
 * A use-case returns the outbound event deliveries it wrote (`deliveryIds`), both modes: exactly
 * the outbox rows of its own transaction, which its caller enqueues once it returned; none when no
 * endpoint takes the event.
 */
import { expect, test } from 'vitest';
import { typedSql } from '../../src/core/db/sql.ts';
import { createPartner } from '../../src/core/programs/programs.ts';
import { approveCommission } from '../../src/core/rewards/approve-commission.ts';
import { openPayout } from '../../src/core/payouts/open-payout.ts';
import { payPayout } from '../../src/core/payouts/pay-payout.ts';
import { generateSealingKey } from '../../src/core/shared/sealed-secrets.ts';
import { bearer, clickAndLead, createProgramFixture, useHarness } from '../helpers/harness.ts';

const h = useHarness({
  // Endpoint secrets are stored sealed: production mode needs a key (embedded mode generates one).
  DATA_ENCRYPTION_KEYS: generateSealingKey('k1'),
  // Nothing listens there: what is checked is what is returned and stored, not what is sent.
  OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
});

/** The program's outbox rows after `afterId`, oldest first. */
const written = async (programId: number, afterId: number) =>
  (
    await typedSql(h.ctx.deps().em)
      .selectFrom('event_delivery')
      .select(['id', 'type'])
      .where('program_id', '=', programId)
      .where('id', '>', afterId)
      .orderBy('id')
      .execute()
  ).map((r) => ({ id: r.id, type: r.type }));

const lastId = async (programId: number) => (await written(programId, 0)).at(-1)?.id ?? 0;

test('each use-case returns exactly the deliveries its transaction wrote', async () => {
  const f = await createProgramFixture(h);
  await h.admin('POST', `/programs/${f.programId}/event-endpoints`, { url: 'http://127.0.0.1:9/hook' });
  const deps = () => h.ctx.deps();

  let since = await lastId(f.programId);
  const added = await createPartner(deps(), f.programId, { code: `e${f.partnerCode}`, name: 'Second' });
  const partnerRows = await written(f.programId, since);
  expect(partnerRows.map((r) => r.type)).toEqual(['partner.created']);
  expect(added.deliveryIds).toEqual(partnerRows.map((r) => r.id));

  await clickAndLead(h, f, 'cust-effects');
  const sale = await h.request('/api/v1/track/sale', {
    body: { transaction_id: 'tx-effects', amount_cents: 10_000, currency: 'USD', customer_key: 'cust-effects' },
    headers: bearer(f.liveKey),
  });
  expect(sale.status).toBe(200);

  since = await lastId(f.programId);
  const approved = await approveCommission(deps(), f.programId, sale.body.commission_id);
  expect(approved.commission.status).toBe('approved');
  expect(approved.deliveryIds).toEqual((await written(f.programId, since)).map((r) => r.id));
  expect(approved.deliveryIds).toHaveLength(1);

  since = await lastId(f.programId);
  const opened = await openPayout(deps(), f.programId, f.partnerId, 'USD', null);
  const openRows = await written(f.programId, since);
  expect(openRows.map((r) => r.type)).toEqual(['payout.created']);
  expect(opened.deliveryIds).toEqual(openRows.map((r) => r.id));

  since = await lastId(f.programId);
  const paid = await payPayout(deps(), f.programId, opened.payout.id);
  const paidRows = await written(f.programId, since);
  expect(paidRows.map((r) => r.type)).toEqual(['payout.paid', 'commission.updated']);
  expect(paid.deliveryIds).toEqual(paidRows.map((r) => r.id));
});

test('a program without endpoints writes and returns no delivery', async () => {
  const f = await createProgramFixture(h);
  const added = await createPartner(h.ctx.deps(), f.programId, { code: `n${f.partnerCode}`, name: 'None' });
  expect(added.deliveryIds).toEqual([]);
  expect(await written(f.programId, 0)).toEqual([]);
});
