/**
 * The harness the payout-run tests share (sealed payout details, no sweeper starting the schedule
 * first) and their steps: a sale, a credited commission, a partner's portal session (on the
 * payout-method API or any partner path), a run's file, a partner's statement.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { ADMIN_TOKEN, bearer, clickAndLead, useHarness, type Fixture } from '../helpers/harness.ts';

export function usePayoutRunHarness() {
  const KEY = `k1:${randomBytes(32).toString('base64')}`;
  // The test starts the schedule itself: no sweeper may start it first (runScheduledPayouts is what it runs).
  const h = useHarness({ DATA_ENCRYPTION_KEYS: KEY, SWEEP_INTERVAL_MS: '3600000' });
  let seq = 0;
  /** A number not used before in this file: unique partner codes and transaction ids. */
  const next = () => ++seq;

  /** A sale of `saleCents` for the partner (`code`), at the program's rate; its commission and transaction ids. */
  async function sale(f: Fixture, saleCents: number, code = f.partnerCode) {
    const n = next();
    const customer = `c-${n}`;
    await clickAndLead(h, f, customer, code);
    const r = await h.request('/api/v1/track/sale', {
      body: { transaction_id: `run-${n}`, amount_cents: saleCents, customer_key: customer },
      headers: bearer(f.liveKey),
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return { commissionId: r.body.commission_id as number, transactionId: `run-${n}` };
  }

  /** A credited commission of `cents` for the partner (`code`): a sale at 10%, approved. */
  async function credited(f: Fixture, saleCents: number, code = f.partnerCode): Promise<number> {
    const { commissionId } = await sale(f, saleCents, code);
    await h.admin('POST', `/programs/${f.programId}/commissions/${commissionId}/approve`, {});
    return commissionId;
  }

  /** A partner's portal session: `(method, path, body?)` on the partner API (path after `/api/v1/partner`). */
  async function session(f: Fixture, partnerId: number) {
    const invite = await h.admin('POST', `/programs/${f.programId}/partners/${partnerId}/invites`);
    const token = new URL(invite.invite_url).pathname.split('/').pop();
    const r = await h.request(`/api/v1/partner/invites/${token}`, { body: { password: 'correct horse battery' } });
    expect(r.status).toBe(201);
    const cookie = (r.headers.get('set-cookie') ?? '').split(';')[0]!;
    return (method: string, path: string, body?: unknown) =>
      h.request(`/api/v1/partner${path}`, { method, body, headers: { cookie, 'x-csrf-token': r.body.csrf_token } });
  }

  /** A partner's portal session on the payout-method API. */
  async function portal(f: Fixture, partnerId: number) {
    const s = await session(f, partnerId);
    return (method: string, body?: unknown) => s(method, '/payout-method', body);
  }

  async function file(f: Fixture, runId: number, format?: string) {
    const r = await h.request(
      `/api/v1/admin/programs/${f.programId}/payout-runs/${runId}/file${format ? `?format=${format}` : ''}`,
      { method: 'GET', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
    );
    return {
      status: r.status,
      type: r.headers.get('content-type'),
      text: typeof r.body === 'string' ? r.body : JSON.stringify(r.body),
      body: r.body,
    };
  }

  const statement = async (f: Fixture, partnerId: number) =>
    (await h.admin('GET', `/programs/${f.programId}/partners/${partnerId}/statement`)).currencies[0];

  return { h, next, sale, credited, session, portal, file, statement };
}
