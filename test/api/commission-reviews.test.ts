/**
 * Many commissions decided in one call: each gets its own result, one refusal leaves the others
 * decided, a commission of another program is not found (and left alone), rejection is final.
 */
import { expect, test } from 'vitest';
import {
  ADMIN_TOKEN,
  bearer,
  clickAndLead,
  createProgramFixture,
  useHarness,
  type Fixture,
} from '../helpers/harness.ts';

const h = useHarness();
let seq = 0;

/** A sale of 100.00 at 10%, right after its click (held when the fast-conversion rule is on). */
async function sale(f: Fixture): Promise<number> {
  const key = `rev-${++seq}`;
  await clickAndLead(h, f, key);
  const r = await h.request('/api/v1/track/sale', {
    body: { transaction_id: `rev-${seq}`, amount_cents: 10_000, customer_key: key },
    headers: bearer(f.liveKey),
  });
  expect(r.status).toBe(200);
  return r.body.commission_id;
}

const review = (programId: number, body: unknown) =>
  h.request(`/api/v1/admin/programs/${programId}/commissions/review`, {
    body,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });

test('bulk approve and reject: per-item results, tenant scoping, reject is final', async () => {
  const f = await createProgramFixture(h, { commission_rate_bps: 1000 });
  const other = await createProgramFixture(h, { commission_rate_bps: 1000 });
  const plain = await sale(f); // pending, not held
  const foreign = await sale(other);
  await h.admin('PATCH', `/programs/${f.programId}`, { fraud_rules: { fast_conversion_seconds: 3600 } });
  const held = [await sale(f), await sale(f), await sale(f)];

  const approved = await review(f.programId, { action: 'approve', commission_ids: [held[0], plain, foreign, held[0]] });
  expect(approved.status).toBe(200);
  expect(approved.body).toMatchObject({ action: 'approve', decided: 2, refused: 1 });
  expect(approved.body.results.map((r: { commission_id: number; ok: boolean }) => [r.commission_id, r.ok])).toEqual([
    [held[0], true],
    [plain, true],
    [foreign, false],
  ]);
  expect(approved.body.results[0].commission).toMatchObject({ status: 'approved', held_for_review: false });
  expect(approved.body.results[2].error.code).toBe('not_found');

  const rejected = await review(f.programId, { action: 'reject', commission_ids: [held[1], held[2], plain] });
  expect(rejected.body).toMatchObject({ decided: 2, refused: 1 });
  expect(rejected.body.results.slice(0, 2).map((r: { commission: { status: string } }) => r.commission.status)).toEqual(
    ['reversed', 'reversed'],
  );
  expect(rejected.body.results[2]).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  // Final: approving a rejected one is refused.
  const late = await review(f.programId, { action: 'approve', commission_ids: [held[1]] });
  expect(late.body.results[0]).toMatchObject({ ok: false, error: { code: 'invalid_request' } });

  // The balance holds exactly the two approved; the other program's commission was not touched.
  const statement = await h.admin('GET', `/programs/${f.programId}/partners/${f.partnerId}/statement`);
  expect(statement.currencies[0]).toMatchObject({ balance_cents: 2_000, reconciles: true });
  const theirs = await h.admin('GET', `/programs/${other.programId}/commissions?limit=10`);
  expect(theirs.commissions[0]).toMatchObject({ id: foreign, status: 'pending', credited_at: null });
});

test('bulk review refuses a malformed request', async () => {
  const f = await createProgramFixture(h);
  for (const body of [
    { action: 'approve', commission_ids: [] },
    { action: 'delete', commission_ids: [1] },
    { action: 'approve', commission_ids: Array.from({ length: 201 }, (_, i) => i + 1) },
  ]) {
    const r = await review(f.programId, body);
    expect([r.status, r.body.error.code]).toEqual([400, 'invalid_request']);
  }
});
