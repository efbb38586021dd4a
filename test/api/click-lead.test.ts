import { beforeAll, describe, expect, test } from 'vitest';
import { bearer, useHarness, createProgramFixture, type Fixture } from '../helpers/harness.ts';

const h = useHarness();
let f: Fixture;
const click = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  h.request('/api/v1/track/click', { body, headers });
const lead = (body: Record<string, unknown>, headers: Record<string, string>) =>
  h.request('/api/v1/track/lead', { body, headers });
const browserLead = (body: Record<string, unknown>, headers: Record<string, string>) =>
  h.request('/api/v1/track/browser-lead', { body, headers });

beforeAll(async () => {
  f = await createProgramFixture(h, { domain: 'shop.example', cookie_duration_days: 45 });
});

describe('POST /api/v1/track/click (no authentication)', () => {
  test('records a click: click_id, partner_code, cookie_window_days = program cookie duration', async () => {
    const r = await click({
      affiliate_url: `https://shop.example/pricing?aff=${f.partnerCode}`,
      page_url: 'https://shop.example/pricing',
      referrer_url: 'https://blog.example/post',
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      click_id: expect.any(String),
      partner_code: f.partnerCode,
      cookie_window_days: 45,
    });
    const { clicks } = await h.admin('GET', `/programs/${f.programId}/clicks`);
    expect(clicks[0]).toMatchObject({
      id: r.body.click_id,
      partner: f.partnerId,
      referrer_url: 'https://blog.example/post',
    });
  });

  test('subdomains of the program domain are accepted; other hosts are rejected', async () => {
    expect((await click({ affiliate_url: `https://www.shop.example/?aff=${f.partnerCode}` })).status).toBe(200);
    const r = await click({ affiliate_url: `https://evil.example/?aff=${f.partnerCode}` });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'affiliate_url' } });
  });

  test('an existing click id is overwritten by a later partner link (last-partner attribution)', async () => {
    const first = await click({ affiliate_url: `https://shop.example/?aff=${f.partnerCode}` });
    const { partner: p2 } = await h.admin('POST', `/programs/${f.programId}/partners`, {
      code: `${f.partnerCode}-b`,
      name: 'Second',
    });
    const second = await click({
      affiliate_url: `https://shop.example/?aff=${p2.code}`,
      existing_click_id: first.body.click_id,
    });
    expect(second.body.click_id).toBe(first.body.click_id);
    const { clicks } = await h.admin('GET', `/programs/${f.programId}/clicks?limit=500`);
    expect(clicks.find((c: any) => c.id === first.body.click_id).partner).toBe(p2.id);
  });

  test.each([
    ['unknown aff', { affiliate_url: 'https://shop.example/?aff=nobody-here' }, 404, 'not_found'],
    ['no aff parameter', { affiliate_url: 'https://shop.example/' }, 400, 'invalid_request'],
    ['not a URL', { affiliate_url: 'shop.example?aff=x' }, 400, 'invalid_request'],
    ['missing affiliate_url', {}, 400, 'invalid_request'],
    ['javascript: URL', { affiliate_url: 'javascript:alert(1)//?aff=x' }, 400, 'invalid_request'],
  ])('%s → %i %s', async (_l, body, status, code) => {
    const r = await click(body);
    expect(r.status).toBe(status);
    expect(r.body.error.code).toBe(code);
  });

  test('CORS: preflight and responses allow the calling origin', async () => {
    const pre = await h.request('/api/v1/track/click', {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    const r = await click(
      { affiliate_url: `https://shop.example/?aff=${f.partnerCode}` },
      { origin: 'https://shop.example' },
    );
    expect(r.headers.get('access-control-allow-origin')).toBe('https://shop.example');
  });
});

describe('POST /api/v1/track/lead', () => {
  test('server mode binds customer_key to the click (email stored only as a hash)', async () => {
    const c = await click({ affiliate_url: `https://shop.example/?aff=${f.partnerCode}` });
    const r = await lead(
      {
        customer_key: 'u-1',
        email: 'Alice@Example.com ',
        click_id: c.body.click_id,
        event_name: 'signup',
        additional_data: { plan: 'pro' },
      },
      bearer(f.liveKey),
    );
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      customer_id: expect.any(Number),
      customer_key: 'u-1',
      click_id: c.body.click_id,
      commission_id: null,
    });
    const { customers } = await h.admin('GET', `/programs/${f.programId}/customers`);
    const row = customers.find((x: any) => x.id === r.body.customer_id);
    expect(row.email_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(customers)).not.toContain('lice@');
  });

  test('a click id alone creates a customer bound to the click', async () => {
    const c = await click({ affiliate_url: `https://shop.example/?aff=${f.partnerCode}` });
    const r = await lead({ click_id: c.body.click_id }, bearer(f.liveKey));
    expect(r.body).toMatchObject({ customer_key: null, click_id: c.body.click_id });
  });

  test.each([
    ['neither customer_key nor click_id', { email: 'a@b.c' }],
    ['a click of no program of ours', { customer_key: 'u-9', click_id: 'nope' }],
    ['wrong types', { customer_key: 12 }],
  ])('400 invalid_request: %s', async (_l, body) => {
    const r = await lead(body, bearer(f.liveKey));
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
  });

  test('401 with an unknown key', async () => {
    expect((await lead({ customer_key: 'x' }, bearer('trk_live_unknownunknown'))).status).toBe(401);
  });

  // Spec, Authentication rules 1 and 3: lead calls carry a bearer key; missing or malformed is 401.
  test.each([
    ['no Authorization header', {}],
    ['no Authorization header, a browser Origin and a browser body', { origin: 'https://shop.example' }],
    ['a malformed header', { authorization: 'Token abc' }],
    ['an empty bearer', { authorization: 'Bearer ' }],
  ])('401 unauthorized (platform envelope): %s', async (_l, headers) => {
    const c = await click({ affiliate_url: `https://shop.example/?aff=${f.partnerCode}` });
    const r = await lead({ program_id: f.programId, customer_key: 'nokey', click_id: c.body.click_id }, headers);
    expect(r.status).toBe(401);
    expect(r.body).toEqual({
      data: null,
      error: {
        status: 401,
        name: expect.any(String),
        message: expect.any(String),
        details: expect.any(Object),
        code: 'unauthorized',
      },
    });
  });
});

describe('POST /api/v1/track/browser-lead (tracker signup, no key)', () => {
  test('program id + a click of that program + a matching Origin', async () => {
    const c = await click({ affiliate_url: `https://shop.example/?aff=${f.partnerCode}` });
    const ok = await browserLead(
      { program_id: f.programId, customer_key: 'b-1', click_id: c.body.click_id },
      { origin: 'https://www.shop.example' },
    );
    expect(ok.status).toBe(200);
    const bad = await browserLead(
      { program_id: f.programId, customer_key: 'b-2', click_id: c.body.click_id },
      { origin: 'https://evil.example' },
    );
    expect(bad.status).toBe(403);
    expect(bad.body.error.code).toBe('forbidden');
    const noOrigin = await browserLead({ program_id: f.programId, customer_key: 'b-3', click_id: c.body.click_id }, {});
    expect(noOrigin.status).toBe(403);
    const noClick = await browserLead(
      { program_id: f.programId, customer_key: 'b-4' },
      { origin: 'https://shop.example' },
    );
    expect(noClick.status).toBe(400);
  });

  test('a browser lead never rebinds an existing customer; a keyed lead may', async () => {
    const c1 = await click({ affiliate_url: `https://shop.example/?aff=${f.partnerCode}` });
    const c2 = await click({ affiliate_url: `https://shop.example/?aff=${f.partnerCode}` });
    await lead({ customer_key: 'keep', click_id: c1.body.click_id }, bearer(f.liveKey));
    const browser = await browserLead(
      { program_id: f.programId, customer_key: 'keep', click_id: c2.body.click_id },
      { origin: 'https://shop.example' },
    );
    expect(browser.body.click_id).toBe(c1.body.click_id);
    const server = await lead({ customer_key: 'keep', click_id: c2.body.click_id }, bearer(f.liveKey));
    expect(server.body.click_id).toBe(c2.body.click_id);
  });

  test("cannot bind to another program's click", async () => {
    const other = await createProgramFixture(h, { domain: 'shop.example' });
    const c = await click({ affiliate_url: `https://shop.example/?aff=${other.partnerCode}` });
    const r = await browserLead(
      { program_id: f.programId, customer_key: 'x-1', click_id: c.body.click_id },
      { origin: 'https://shop.example' },
    );
    expect(r.status).toBe(400);
  });
});

test("a test key's lead is test traffic: a test event, no customer", async () => {
  const before = (await h.admin('GET', `/programs/${f.programId}/customers?limit=500`)).customers.length;
  const r = await lead({ customer_key: 'test-user' }, bearer(f.testKey));
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({
    success: true,
    data: { test_mode: true, programId: f.programId, eventId: expect.any(Number) },
  });
  expect((await h.admin('GET', `/programs/${f.programId}/customers?limit=500`)).customers.length).toBe(before);
});
