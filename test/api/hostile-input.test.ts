/**
 * Bytes PostgreSQL cannot store and shapes nothing should walk: every one is the caller's 400
 * naming the field, never a 500 after retries, a 503 "retrying is safe", or a silent collision.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import {
  ADMIN_TOKEN,
  bearer,
  clickAndLead,
  useHarness,
  createProgramFixture,
  type Fixture,
} from '../helpers/harness.ts';

const h = useHarness();
let f: Fixture;
let clickId: string;
beforeAll(async () => {
  f = await createProgramFixture(h);
  clickId = await clickAndLead(h, f, 'hostile-1');
});

const NUL = 'a\u0000b';
const LONE = 'x\uD800y';
const nested = (depth: number): unknown => {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};
const count = async (kind: string) => (await h.admin('GET', `/programs/${f.programId}/${kind}?limit=500`))[kind].length;
const sale = (body: Record<string, unknown>) =>
  h.request('/api/v1/track/sale', {
    body: { amount_cents: 1000, customer_key: 'hostile-1', ...body },
    headers: bearer(f.liveKey),
  });

describe('NUL and lone surrogates are a 400 naming the field', () => {
  test.each([
    ['transaction_id', { transaction_id: `t-${NUL}` }, 'transaction_id'],
    [
      'a lone surrogate in transaction_id (no silent U+FFFD collision)',
      { transaction_id: `t-${LONE}` },
      'transaction_id',
    ],
    ['inside line_items', { transaction_id: 'ok-1', line_items: { sku: [{ name: LONE }] } }, 'line_items.sku.0.name'],
    [
      'a key inside additional_data',
      { transaction_id: 'ok-2', additional_data: { [NUL]: 1 } },
      `additional_data.${NUL}`,
    ],
    ['customer_key', { transaction_id: 'ok-3', customer_key: NUL }, 'customer_key'],
  ])('sale: %s', async (_label, body, field) => {
    const r = await sale(body);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
    expect(r.body.error.details.field).toBe(field);
  });

  test('two ids differing only in a lone surrogate never collide: both refused, the valid one still recorded', async () => {
    expect((await sale({ transaction_id: 'coll-\uD800' })).status).toBe(400);
    expect((await sale({ transaction_id: 'coll-\uDBFF' })).status).toBe(400);
    expect((await sale({ transaction_id: 'coll-\uFFFD' })).status).toBe(200);
  });

  test('click (no key): a NUL in referrer_url, or %00 in the aff code, creates nothing', async () => {
    const before = await count('clicks');
    const r = await h.request('/api/v1/track/click', {
      body: { affiliate_url: `https://shop.example/?aff=${f.partnerCode}`, referrer_url: NUL },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.details.field).toBe('referrer_url');
    const r2 = await h.request('/api/v1/track/click', {
      body: { affiliate_url: `https://shop.example/?aff=${f.partnerCode}%00` },
    });
    expect(r2.status).toBe(404);
    expect(await count('clicks')).toBe(before);
  });

  test('lead and refund', async () => {
    const lead = await h.request('/api/v1/track/lead', {
      body: { customer_key: 'k', click_id: clickId, event_name: LONE },
      headers: bearer(f.liveKey),
    });
    expect(lead.status).toBe(400);
    expect(lead.body.error.details.field).toBe('event_name');
    const refund = await h.request('/api/v1/track/refund', {
      body: { transaction_id: 'x', refund_reason: NUL },
      headers: bearer(f.liveKey),
    });
    expect(refund.status).toBe(400);
    expect(refund.body.error.details.field).toBe('refund_reason');
  });
});

describe('nesting and numbers', () => {
  test.each([
    ['line_items', 5_000],
    ['additional_data', 10_000],
  ])('%s nested %i deep is a 400, not a 503', async (field, depth) => {
    // Built as text: the test process's own JSON.stringify would overflow the stack.
    const raw = `{"transaction_id":"deep-${depth}","amount_cents":1000,"customer_key":"hostile-1","${field}":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
    const r = await h.request('/api/v1/track/sale', { raw, headers: bearer(f.liveKey) });
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
    expect(r.body.error.details.problem).toBe('too_deep');
  });

  test('32 levels are still accepted', async () => {
    const r = await sale({ transaction_id: 'deep-ok', line_items: nested(30) });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  });

  test.each([
    ['/api/v1/track/sale', { transaction_id: 'big', amount_cents: 2 ** 63, customer_key: 'hostile-1' }],
    ['/api/v1/track/refund', { transaction_id: 'big', refund_amount_cents: 2 ** 63 }],
    ['/api/v1/track/browser-lead', { program_id: 2 ** 63, customer_key: 'k', click_id: 'c' }],
    ['/api/v1/track/test', { program_id: 2 ** 31 }],
  ])('2^63 (or an id past int) in %s is a 400', async (path, body) => {
    const r = await h.request(path, {
      raw: JSON.stringify(body).replace('9223372036854776000', '9223372036854775808'),
      headers:
        path.endsWith('browser-lead') || path.endsWith('test') ? { origin: 'http://localhost' } : bearer(f.liveKey),
    });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
  });
});

describe('admin lists', () => {
  test.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
    '/programs/:id/%s is a 404, not a prototype lookup',
    async (name) => {
      const r = await h.request(`/api/v1/admin/programs/${f.programId}/${name}`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(404);
    },
  );

  test('a status filter applies only to lists that have a status', async () => {
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    expect(
      (await h.request(`/api/v1/admin/programs/${f.programId}/clicks?status=pending`, { headers: auth })).status,
    ).toBe(400);
    expect((await h.request(`/api/v1/admin/programs/${f.programId}/sales?status=`, { headers: auth })).status).toBe(
      400,
    );
    expect(
      (await h.request(`/api/v1/admin/programs/${f.programId}/commissions?status=pending`, { headers: auth })).status,
    ).toBe(200);
    expect(
      (await h.request(`/api/v1/admin/programs/${f.programId}/commissions?status=%00`, { headers: auth })).status,
    ).toBe(400);
  });

  test('an id past PostgreSQL int is a 400, not a database error', async () => {
    const r = await h.request('/api/v1/admin/programs/9007199254740991', {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(r.status).toBe(400);
  });
});

test('a job whose value the database refuses is answered once (400), never retried', async () => {
  // An over-long key (only reachable past the HTTP schema) fails with a data error on insert: the
  // outcome is a final 400, where a thrown error would be retried and end as a 500.
  const job = {
    kind: 'lead' as const,
    programId: f.programId,
    customerKey: 'k'.repeat(300),
    clickId,
    emailHash: null,
    emailDisposable: null,
    eventName: null,
    additionalData: null,
    browser: false,
    receivedAt: new Date().toISOString(),
  };
  const out = (await h.ctx.queue.addAndWait('track', job, 10_000)) as { ok: boolean; error?: { code: string } };
  expect(out.ok).toBe(false);
  expect(out.error?.code).toBe('invalid_request');
});

describe('malformed URLs', () => {
  test.each(['/api/v1/%ZZ', '/api/v1/admin/programs/%E0%A4%A', '/%'])(
    '%s is the caller’s 400 invalid_request, not a 500',
    async (path) => {
      const r = await h.request(path, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body).toMatchObject({ error: { code: 'invalid_request' } });
    },
  );
});

describe('duplicate keys', () => {
  test.each([
    [
      'a top-level key',
      '{"transaction_id":"dup-1","amount_cents":1,"customer_key":"hostile-1","amount_cents":100000}',
      'amount_cents',
    ],
    [
      'a nested key',
      '{"transaction_id":"dup-2","amount_cents":1000,"customer_key":"hostile-1","additional_data":{"plan":"a","plan":"b"}}',
      'additional_data.plan',
    ],
  ])('%s repeated → 400 invalid_request naming it; nothing recorded', async (_, raw, field) => {
    const r = await h.request('/api/v1/track/sale', { raw, headers: bearer(f.liveKey) });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_request', details: { field } });
    expect(r.body.error.message).toContain(`"${field}"`);
    const sales = await h.admin('GET', `/programs/${f.programId}/sales?limit=500`);
    expect(sales.sales.filter((s: { transaction_id: string }) => s.transaction_id.startsWith('dup-'))).toEqual([]);
  });

  test('the same key in two different objects is not a duplicate', async () => {
    const raw =
      '{"transaction_id":"dup-ok","amount_cents":1000,"customer_key":"hostile-1","line_items":[{"id":"a"},{"id":"b"}],"additional_data":{"id":"c"}}';
    expect((await h.request('/api/v1/track/sale', { raw, headers: bearer(f.liveKey) })).status).toBe(200);
  });

  test('admin routes refuse them too', async () => {
    const r = await h.request(`/api/v1/admin/programs/${f.programId}`, {
      method: 'PATCH',
      raw: '{"commission_rate_bps":1000,"commission_rate_bps":9000}',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(r.status).toBe(400);
    expect((await h.admin('GET', `/programs/${f.programId}`)).program.commission_rate_bps).not.toBe(9000);
  });
});
