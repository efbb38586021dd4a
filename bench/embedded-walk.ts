/**
 * The scripted walk of the `embedded-memory` case: what an operator does in the dashboard, over
 * HTTP only. Signs in (a dashboard session, its CSRF token on every write), loads the dashboard's
 * page and assets, creates a program, its key, 20 partners and reward rules, records 200 sales and
 * 20 partial refunds, approves one partner's commissions and pays them out, downloads a CSV export
 * and that partner's statement (JSON and CSV), and reads every page the dashboard shows.
 */

export type WalkResult = { requests: number; sales: number; refunds: number; csvBytes: number; payoutCents: number };

const PARTNERS = 20;
const SALES = 200;
const REFUNDS = 20;

export async function walkDashboard(base: string, adminToken: string): Promise<WalkResult> {
  let requests = 0;
  const call = async (
    method: string,
    path: string,
    init: { body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    requests += 1;
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text.slice(0, 300)}`);
    return { res, text };
  };
  const json = async (method: string, path: string, init: { body?: unknown; headers?: Record<string, string> } = {}) =>
    // The walk reads a few fields of many answers; their full types add nothing here.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    JSON.parse((await call(method, path, init)).text) as any;

  // The dashboard page and everything it loads.
  const page = (await call('GET', '/dashboard')).text;
  for (const [, asset] of page.matchAll(/(?:src|href)="(\/dashboard\/[^"]+)"/g)) await call('GET', asset!);

  // Sign in as the dashboard does: a session cookie, the CSRF token on every write.
  const signIn = await call('POST', '/api/v1/dashboard/session', { body: { token: adminToken } });
  const cookie = (signIn.res.headers.get('set-cookie') ?? '').split(';')[0]!;
  const csrf = (JSON.parse(signIn.text) as { csrf_token: string }).csrf_token;
  const admin = (method: string, path: string, body?: unknown) =>
    json(method, `/api/v1/admin${path}`, {
      body,
      headers: { cookie, ...(method === 'GET' ? {} : { 'x-csrf-token': csrf }) },
    });
  await admin('GET', '/me');
  await admin('GET', '/programs');
  await admin('GET', '/currencies');

  const { program } = await admin('POST', '/programs', {
    name: 'Memory walk',
    domain: 'walk.example',
    commission_rate_bps: 2_000,
    hold_period_days: 30,
  });
  const p = `/programs/${program.id}`;
  const { key } = await admin('POST', `${p}/keys`, { mode: 'live' });
  const partnerIds: number[] = [];
  for (let i = 0; i < PARTNERS; i++) {
    const { partner } = await admin('POST', `${p}/partners`, {
      code: `walk${i}`,
      name: `Partner ${i}`,
      email: `walk${i}@example.com`,
    });
    partnerIds.push(partner.id);
  }
  await admin('PATCH', p, {
    reward_rules: {
      sale: { type: 'flat', amounts: { USD: 500 } },
      products: { pro_annual: { type: 'percent', bps: 3_000 } },
    },
  });

  // Sales from the merchant's backend (four at a time), each customer bound by its partner's code.
  const track = (path: string, body: unknown) =>
    json('POST', `/api/v1/track/${path}`, { body, headers: { authorization: `Bearer ${key}` } });
  for (let start = 0; start < SALES; start += 4)
    await Promise.all(
      [0, 1, 2, 3].map((k) => {
        const i = start + k;
        return track('sale', {
          transaction_id: `walk_tx_${i}`,
          amount_cents: 2_000 + (i % 50) * 100,
          currency: 'USD',
          customer_key: `walk_customer_${i}`,
          referral_code: `walk${i % PARTNERS}`,
          ...(i % 5 === 0 ? { product_id: 'pro_annual' } : {}),
        });
      }),
    );
  for (let i = 0; i < REFUNDS; i++)
    await track('refund', {
      transaction_id: `walk_tx_${i * 7 + 1}`,
      refund_amount_cents: 500,
      refund_id: `walk_re_${i}`,
    });

  // One partner's commissions approved and paid out.
  const paid = partnerIds[2]!;
  const { commissions } = await admin('GET', `${p}/commissions?partner_id=${paid}`);
  for (const c of commissions as Array<{ id: number; status: string }>)
    if (c.status === 'pending') await admin('POST', `${p}/commissions/${c.id}/approve`);
  const { payout } = await admin('POST', `${p}/partners/${paid}/payouts`, { currency: 'USD' });
  await admin('POST', `${p}/payouts/${payout.id}/pay`);

  // Every page of the dashboard, as its views load them.
  for (const path of [
    '/stats',
    '/stats/commissions',
    '/stats/check',
    ...['clicks', 'customers', 'sales', 'commissions', 'refunds', 'partners', 'notifications', 'payouts'],
    '/payout-runs/preview',
    '/event-endpoints',
    '/application-form',
    '/applications',
    '/email-settings',
    '/staff',
    '/audit',
    '/mcp-tokens',
    `/payouts/${payout.id}`,
    `/partners/${paid}/account`,
    `/partners/${paid}/statement`,
  ])
    await admin('GET', `${p}${path.startsWith('/') ? path : `/${path}`}`);

  // Downloads: every commission, and the paid partner's statement.
  const csv = await call('GET', `/api/v1/admin${p}/exports/commissions.csv`, { headers: { cookie } });
  const statement = await call('GET', `/api/v1/admin${p}/exports/statement.csv?partner_id=${paid}`, {
    headers: { cookie },
  });
  if (csv.text.split('\n').length < SALES) throw new Error(`the commissions export has too few lines`);
  return {
    requests,
    sales: SALES,
    refunds: REFUNDS,
    csvBytes: csv.text.length + statement.text.length,
    payoutCents: payout.amount_cents,
  };
}
