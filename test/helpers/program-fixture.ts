import { randomBytes } from 'node:crypto';
import type { Harness } from './harness.ts';

// The program most tests start from, and the first steps of a referred customer, through the API.

export type Fixture = {
  programId: number;
  liveKey: string;
  testKey: string;
  liveKeyId: number;
  partnerId: number;
  partnerCode: string;
};

/** A program (created through the admin API) with live and test keys and one partner. */
export async function createProgramFixture(
  h: Harness,
  config: Record<string, unknown> = {},
  code = `p${randomBytes(4).toString('hex')}`,
): Promise<Fixture> {
  const { program } = await h.admin('POST', '/programs', { name: 'Acme', hold_period_days: 30, ...config });
  const live = await h.admin('POST', `/programs/${program.id}/keys`, { mode: 'live' });
  const test = await h.admin('POST', `/programs/${program.id}/keys`, { mode: 'test' });
  const { partner } = await h.admin('POST', `/programs/${program.id}/partners`, { code, name: 'Partner One' });
  return {
    programId: program.id,
    liveKey: live.key,
    testKey: test.key,
    liveKeyId: live.id,
    partnerId: partner.id,
    partnerCode: partner.code,
  };
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** Records a click through the API and binds a lead to it; returns the click id. */
export async function clickAndLead(h: Harness, f: Fixture, customerKey: string, code = f.partnerCode): Promise<string> {
  const click = await h.request('/api/v1/track/click', {
    body: { affiliate_url: `https://shop.example/?aff=${code}` },
  });
  if (click.status !== 200) throw new Error(`click → ${click.status} ${JSON.stringify(click.body)}`);
  const lead = await h.request('/api/v1/track/lead', {
    body: { customer_key: customerKey, click_id: click.body.click_id, email: 'a@b.example' },
    headers: bearer(f.liveKey),
  });
  if (lead.status !== 200) throw new Error(`lead → ${lead.status} ${JSON.stringify(lead.body)}`);
  return click.body.click_id;
}
