/**
 * Every outbound event is checked against its schema before it is written to the outbox, both
 * modes: an event the schema refuses fails its transaction and leaves no delivery; the events the
 * use-cases write (a partner, a lead, a sale and its commission) are stored as their schemas
 * describe them.
 */
import { expect, test } from 'vitest';
import { emitEvents } from '../../src/core/outbound/emit-events.ts';
import { outboundEventSchema } from '../../src/core/outbound/event-schemas.ts';
import type { OutboundEvent } from '../../src/core/outbound/event-types.ts';
import { typedSql } from '../../src/core/db/sql.ts';
import { generateSealingKey } from '../../src/core/shared/sealed-secrets.ts';
import { bearer, clickAndLead, createProgramFixture, useHarness, type Fixture } from '../helpers/harness.ts';

const h = useHarness({
  // Endpoint secrets are stored sealed: production mode needs a key (embedded mode generates one).
  DATA_ENCRYPTION_KEYS: generateSealingKey('k1'),
  // Nothing listens there: what is checked is what is stored, not what is sent.
  OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
});

async function withEndpoint(): Promise<Fixture> {
  const f = await createProgramFixture(h);
  await h.admin('POST', `/programs/${f.programId}/event-endpoints`, { url: 'http://127.0.0.1:9/hook' });
  return f;
}

const deliveries = (programId: number) =>
  typedSql(h.ctx.deps().em)
    .selectFrom('event_delivery')
    .select(['type', 'payload'])
    .where('program_id', '=', programId)
    .orderBy('id')
    .execute();

test('an event its schema refuses is never stored, and fails the transaction it is written in', async () => {
  const f = await withEndpoint();
  const deps = h.ctx.deps();
  const partner = {
    id: f.partnerId,
    code: f.partnerCode,
    name: 'Partner One',
    email: null,
    created_at: '2026-11-20T08:00:00.000Z',
  };
  // A builder that forgot `name`.
  const { name: _, ...drifted } = partner;
  const refused = deps.em.transactional((em) =>
    emitEvents({ ...deps, em }, f.programId, [{ type: 'partner.created', data: drifted } as unknown as OutboundEvent]),
  );
  await expect(refused).rejects.toThrow(/partner\.created does not match its schema[\s\S]*name/);
  expect(await deliveries(f.programId)).toEqual([]);

  await deps.em.transactional((em) =>
    emitEvents({ ...deps, em }, f.programId, [{ type: 'partner.created', data: partner }]),
  );
  const [stored, ...more] = await deliveries(f.programId);
  expect(more).toEqual([]);
  expect(JSON.parse(stored!.payload)).toEqual({
    type: 'partner.created',
    timestamp: expect.any(String),
    data: partner,
  });
});

test("the use-cases' events are stored as their schemas describe them", async () => {
  const f = await withEndpoint();
  const added = await h.admin('POST', `/programs/${f.programId}/partners`, {
    code: `s${f.partnerCode}`,
    name: 'Second',
  });
  await clickAndLead(h, f, 'cust-1');
  const sale = await h.request('/api/v1/track/sale', {
    body: { transaction_id: 'tx-schema-1', amount_cents: 4900, currency: 'USD', customer_key: 'cust-1' },
    headers: bearer(f.liveKey),
  });
  expect(sale.status).toBe(200);
  const rows = await deliveries(f.programId);
  expect(rows.map((r) => r.type)).toEqual(['partner.created', 'lead.created', 'sale.created', 'commission.created']);
  for (const r of rows) {
    const body = outboundEventSchema.parse(JSON.parse(r.payload));
    expect(body.type).toBe(r.type);
  }
  expect(JSON.parse(rows[0]!.payload).data).toMatchObject({ id: added.partner.id, name: 'Second', email: null });
});
