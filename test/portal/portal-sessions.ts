/**
 * Sessions through the real app for the portal and dashboard tests: a harness with session and
 * invite lifetimes set, two programs and a second partner, and the steps a browser takes (sign in,
 * accept an invite, call the partner API with the cookie and CSRF token). Cookies are carried by
 * hand, as a browser would.
 */
import { expect } from 'vitest';
import {
  ADMIN_TOKEN,
  bearer,
  clickAndLead,
  createHarness,
  createProgramFixture,
  type Fixture,
  type Harness,
} from '../helpers/harness.ts';

/** Program 1 with partner A (`one`) and partner B, program 2 with partner C (`other`). */
export type PortalWorld = { h: Harness; one: Fixture; other: Fixture; partnerB: { id: number; code: string } };

export async function createPortalWorld(): Promise<PortalWorld> {
  const h = await createHarness({ SESSION_TTL_HOURS: '12', INVITE_TTL_HOURS: '72' });
  const one = await createProgramFixture(h, { commission_rate_bps: 1000 });
  const other = await createProgramFixture(h, { commission_rate_bps: 2000 });
  const { partner } = await h.admin('POST', `/programs/${one.programId}/partners`, {
    code: `b${one.partnerCode}`,
    name: 'Partner B',
    email: 'b@partners.example',
  });
  return { h, one, other, partnerB: partner };
}

export type Session = { cookie: string; csrf: string; setCookie: string };
const cookieOf = (setCookie: string) => setCookie.split(';')[0] as string;

export async function operatorSession(h: Harness): Promise<Session> {
  const r = await h.request('/api/v1/dashboard/session', { body: { token: ADMIN_TOKEN } });
  expect(r.status).toBe(201);
  const setCookie = r.headers.get('set-cookie') ?? '';
  return { cookie: cookieOf(setCookie), csrf: r.body.csrf_token, setCookie };
}

export async function invite(h: Harness, f: { programId: number }, partnerId: number): Promise<string> {
  const r = await h.admin('POST', `/programs/${f.programId}/partners/${partnerId}/invites`);
  return new URL(r.invite_url).pathname.split('/').pop() as string;
}

export async function acceptInvite(h: Harness, token: string, password = 'correct horse battery'): Promise<Session> {
  const r = await h.request(`/api/v1/partner/invites/${token}`, { body: { password } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const setCookie = r.headers.get('set-cookie') ?? '';
  return { cookie: cookieOf(setCookie), csrf: r.body.csrf_token, setCookie };
}

export async function partnerSignIn(h: Harness, login: string, password: string): Promise<Session> {
  const r = await h.request('/api/v1/partner/session', { body: { login, password } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const setCookie = r.headers.get('set-cookie') ?? '';
  return { cookie: cookieOf(setCookie), csrf: r.body.csrf_token, setCookie };
}

export const asPartner = (
  h: Harness,
  s: Session,
  path: string,
  init: { method?: string; body?: unknown; csrf?: boolean } = {},
) =>
  h.request(`/api/v1/partner${path}`, {
    method: init.method,
    body: init.body,
    headers: { cookie: s.cookie, ...(init.csrf === false ? {} : { 'x-csrf-token': s.csrf }) },
  });

let seq = 0;

/** A click, a lead and a sale of `amount` cents for `customer` in program `f`. */
export async function sale(h: Harness, f: Fixture, customer: string, amount: number, code?: string) {
  await clickAndLead(h, f, customer, code);
  const r = await h.request('/api/v1/track/sale', {
    body: { transaction_id: `tx-${++seq}`, amount_cents: amount, customer_key: customer },
    headers: bearer(f.liveKey),
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return { transactionId: `tx-${seq}`, commissionId: r.body.commission_id as number };
}
