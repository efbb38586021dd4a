/**
 * Lead emails are stored as HMAC-SHA256 of the normalised address under a server secret
 * (EMAIL_HASH_SECRET, else a key generated once and kept in the database), never as plain SHA-256
 * that a dictionary reverses. Hashes stored by an older scheme (version 1 plain, version 2 before
 * normalisation) are replaced when a lead brings the email again.
 */
import { createHash, createHmac } from 'node:crypto';
import { beforeAll, describe, expect, test } from 'vitest';
import { buildLeadJob } from '../../src/core/jobs/lead-job.ts';
import { bindLead } from '../../src/core/attribution/bind-lead.ts';
import { bearer, useHarness, createProgramFixture, type Fixture, type Harness } from '../helpers/harness.ts';

const SECRET = 'email-hash-secret-for-tests-0123456789';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const hmac = (key: string, s: string) => createHmac('sha256', key).update(s).digest('hex');

async function click(h: Harness, f: Fixture): Promise<string> {
  const r = await h.request('/api/v1/track/click', {
    body: { affiliate_url: `https://shop.example/?aff=${f.partnerCode}` },
  });
  expect(r.status).toBe(200);
  return r.body.click_id;
}
async function customerRow(h: Harness, programId: number, key: string) {
  const [row] = await h.ctx.db.em
    .fork()
    .execute<Array<{ email_hash: string | null; email_hash_version: number | null }>>(
      'select email_hash, email_hash_version from customer where program_id = ? and customer_key = ?',
      [programId, key],
    );
  return row;
}

describe('with EMAIL_HASH_SECRET', () => {
  const h = useHarness({ EMAIL_HASH_SECRET: SECRET });
  let f: Fixture;
  beforeAll(async () => {
    f = await createProgramFixture(h, { domain: 'shop.example' });
  });

  test('keyed and keyless leads store HMAC-SHA256(secret, normalised email), version 3, never the plain SHA-256', async () => {
    const keyed = await h.request('/api/v1/track/lead', {
      body: { customer_key: 'u-keyed', click_id: await click(h, f), email: ' Alice@Example.com' },
      headers: bearer(f.liveKey),
    });
    expect(keyed.status).toBe(200);
    const browser = await h.request('/api/v1/track/browser-lead', {
      body: {
        program_id: f.programId,
        customer_key: 'u-browser',
        click_id: await click(h, f),
        email: 'B.o.b+signup@GoogleMail.com.',
      },
      headers: { origin: 'https://shop.example' },
    });
    expect(browser.status).toBe(200);
    expect(await customerRow(h, f.programId, 'u-keyed')).toEqual({
      email_hash: hmac(SECRET, 'alice@example.com'),
      email_hash_version: 3,
    });
    expect(await customerRow(h, f.programId, 'u-browser')).toEqual({
      email_hash: hmac(SECRET, 'bob@gmail.com'),
      email_hash_version: 3,
    });
    expect((await customerRow(h, f.programId, 'u-keyed'))!.email_hash).not.toBe(sha256('alice@example.com'));
  });

  test('migration path: a stored plain SHA-256 hash (version 1) is replaced by the keyed hash when the email comes again; a newer hash is kept', async () => {
    const clickId = await click(h, f);
    const first = await h.request('/api/v1/track/lead', {
      body: { customer_key: 'u-legacy', click_id: clickId },
      headers: bearer(f.liveKey),
    });
    expect(first.status).toBe(200);
    // As a row written before the keyed hash (the migration marks those version 1).
    await h.ctx.db.em
      .fork()
      .execute('update customer set email_hash = ?, email_hash_version = 1 where program_id = ? and customer_key = ?', [
        sha256('carol@example.com'),
        f.programId,
        'u-legacy',
      ]);
    const again = await h.request('/api/v1/track/lead', {
      body: { customer_key: 'u-legacy', click_id: clickId, email: 'Carol@example.com' },
      headers: bearer(f.liveKey),
    });
    expect(again.status).toBe(200);
    expect(await customerRow(h, f.programId, 'u-legacy')).toEqual({
      email_hash: hmac(SECRET, 'carol@example.com'),
      email_hash_version: 3,
    });

    // A lead job queued by the previous version (plain hash, no version) never downgrades it.
    await bindLead(h.ctx.deps(), {
      ...buildLeadJob({
        programId: f.programId,
        customerKey: 'u-legacy',
        clickId,
        receivedAt: new Date().toISOString(),
      }),
      emailHash: sha256('carol@example.com'),
    });
    expect(await customerRow(h, f.programId, 'u-legacy')).toEqual({
      email_hash: hmac(SECRET, 'carol@example.com'),
      email_hash_version: 3,
    });
  });

  test('migration path: a keyed hash from before normalisation (version 2) is replaced when the email comes again', async () => {
    const clickId = await click(h, f);
    const lead = (email: string) =>
      h.request('/api/v1/track/lead', {
        body: { customer_key: 'u-v2', click_id: clickId, email },
        headers: bearer(f.liveKey),
      });
    expect((await lead('Erin@example.com')).status).toBe(200);
    await h.ctx.db.em
      .fork()
      .execute('update customer set email_hash = ?, email_hash_version = 2 where program_id = ? and customer_key = ?', [
        hmac(SECRET, 'erin+old@example.com'),
        f.programId,
        'u-v2',
      ]);
    expect((await lead('Erin+New@example.com')).status).toBe(200);
    expect(await customerRow(h, f.programId, 'u-v2')).toEqual({
      email_hash: hmac(SECRET, 'erin@example.com'),
      email_hash_version: 3,
    });
  });
});

describe('without EMAIL_HASH_SECRET', () => {
  const h = useHarness();

  test('a random key is generated once, kept in the database, and used for the hashes', async () => {
    const f = await createProgramFixture(h);
    const r = await h.request('/api/v1/track/lead', {
      body: { customer_key: 'u-gen', click_id: await click(h, f), email: 'dave@example.com' },
      headers: bearer(f.liveKey),
    });
    expect(r.status).toBe(200);
    const [row] = await h.ctx.db.em
      .fork()
      .execute<Array<{ email_hash_secret: string }>>('select email_hash_secret from service_instance where id = 1');
    expect(row!.email_hash_secret.length).toBeGreaterThanOrEqual(40);
    expect(await customerRow(h, f.programId, 'u-gen')).toEqual({
      email_hash: hmac(row!.email_hash_secret, 'dave@example.com'),
      email_hash_version: 3,
    });
  });
});
