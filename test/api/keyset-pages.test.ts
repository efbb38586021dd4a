import { expect, test } from 'vitest';
import { ADMIN_TOKEN, bearer, clickAndLead, createProgramFixture, useHarness } from '../helpers/harness.ts';

const h = useHarness();

const ids = (rows: Array<{ id: number | string }>) => rows.map((r) => r.id);

test('a deep page via ?before=<id> is the same page as via offset, on every list that pages', async () => {
  const f = await createProgramFixture(h);
  for (let i = 0; i < 9; i++) {
    await clickAndLead(h, f, `keyset-${i}`);
    const r = await h.request('/api/v1/track/sale', {
      body: { transaction_id: `keyset-${i}`, amount_cents: 1_000 + i, customer_key: `keyset-${i}` },
      headers: bearer(f.liveKey),
    });
    expect(r.status).toBe(200);
  }
  // Clicks page by time and take a click's id (their public UUID; all nine share one instant here,
  // so the id breaks the tie).
  for (const list of ['sales', 'commissions', 'customers', 'clicks']) {
    const all = (await h.admin('GET', `/programs/${f.programId}/${list}?limit=100`))[list];
    expect(all.length, list).toBe(9);
    // The third page of two: rows 5 and 6, newest first.
    const byOffset = await h.admin('GET', `/programs/${f.programId}/${list}?limit=2&offset=4`);
    const byKeyset = await h.admin('GET', `/programs/${f.programId}/${list}?limit=2&before=${all[3].id}`);
    expect(byKeyset, list).toEqual(byOffset);
    expect(ids(byKeyset[list]), list).toEqual(ids(all.slice(4, 6)));
    // Filters apply to both alike.
    const filtered = `partner_id=${f.partnerId}&limit=3`;
    if (list !== 'customers')
      expect(await h.admin('GET', `/programs/${f.programId}/${list}?${filtered}&before=${all[2].id}`), list).toEqual(
        await h.admin('GET', `/programs/${f.programId}/${list}?${filtered}&offset=3`),
      );
  }
});

test('before together with offset is a 400 in the error envelope, naming offset', async () => {
  const f = await createProgramFixture(h);
  for (const query of ['before=5&offset=0', 'offset=10&before=5&limit=3']) {
    const r = await h.request(`/api/v1/admin/programs/${f.programId}/sales?${query}`, {
      method: 'GET',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      data: null,
      error: {
        status: 400,
        code: 'invalid_request',
        message: 'offset: give either before (the last id of the previous page) or offset, not both',
        details: { issues: [{ field: 'offset' }] },
      },
    });
  }
});

test('before on clicks is a click of this program; a click id on another list is a 400', async () => {
  const f = await createProgramFixture(h);
  const clickId = await clickAndLead(h, f, 'keyset-click');
  const other = await createProgramFixture(h);
  const get = (programId: number, query: string) =>
    h.request(`/api/v1/admin/programs/${programId}/${query}`, {
      method: 'GET',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
  expect((await get(f.programId, `clicks?before=${clickId}`)).body.clicks).toEqual([]);
  for (const query of [`clicks?before=${clickId}`, `sales?before=${clickId}`]) {
    const r = await get(query.startsWith('clicks') ? other.programId : f.programId, query);
    expect(r.status, query).toBe(400);
    expect(r.body.error, query).toMatchObject({ code: 'invalid_request' });
  }
});

test('clicks at different times and some at one instant: every page by before equals the page by offset', async () => {
  const f = await createProgramFixture(h);
  // Three instants, three clicks each: ties within an instant, order across them.
  for (let i = 0; i < 9; i++) {
    if (i % 3 === 0) h.clock.advanceDays(0.01);
    await clickAndLead(h, f, `keyset-time-${i}`);
  }
  const list = async (query: string) => (await h.admin('GET', `/programs/${f.programId}/clicks?${query}`)).clicks;
  const all = await list('limit=100');
  expect(all).toHaveLength(9);
  for (let i = 0; i < 8; i++)
    expect(ids(await list(`limit=4&before=${all[i].id}`)), `after row ${i}`).toEqual(ids(all.slice(i + 1, i + 5)));
});
