/**
 * A provider connection's API key through the admin API: write-only (responses say only whether
 * one is set, and its last 4 characters), sealed in the database, Lemon Squeezy only, re-sealed
 * under a new key after a rotation; production mode without DATA_ENCRYPTION_KEYS refuses it.
 */
import { describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, createProgramFixture, useHarness, type Harness } from '../helpers/harness.ts';
import { createSealer, generateSealingKey, parseSealingKeys } from '../../src/core/shared/sealed-secrets.ts';
import { resealSecrets } from '../../src/core/programs/reseal-secrets.ts';
import { openProviderApiKey } from '../../src/core/integrations/provider-api-keys.ts';
import { ProviderConnection } from '../../src/core/entities/provider-connection.ts';

const OLD_KEY = generateSealingKey('old');
const API_KEY = 'lsk_test_api_key_0123456789wxyz';

async function connected(h: Harness, provider = 'lemonsqueezy') {
  const f = await createProgramFixture(h);
  await h.admin('PUT', `/programs/${f.programId}/providers/${provider}`, { signing_secret: 'whsec_signing_1234' });
  return f;
}

describe('with DATA_ENCRYPTION_KEYS', () => {
  const h = useHarness({ DATA_ENCRYPTION_KEYS: OLD_KEY });

  test('set, show and clear: the key is never returned, only api_key_set and its last 4', async () => {
    const f = await connected(h);
    const path = `/programs/${f.programId}/providers/lemonsqueezy`;
    expect(await h.admin('GET', path)).toEqual({
      provider: 'lemonsqueezy',
      program_id: f.programId,
      api_key_set: false,
      api_key_hint: null,
    });
    const set = await h.admin('PATCH', path, { api_key: API_KEY });
    expect(set).toEqual({
      provider: 'lemonsqueezy',
      program_id: f.programId,
      api_key_set: true,
      api_key_hint: '…wxyz',
    });
    const shown = await h.admin('GET', path);
    expect(shown).toMatchObject({ api_key_set: true, api_key_hint: '…wxyz' });
    const listed = await h.admin('GET', `/programs/${f.programId}/provider-connections`);
    expect(JSON.stringify([set, shown, listed])).not.toContain('0123456789');

    // Stored sealed: the column holds a v1 value under the configured key, not the key.
    const row = await h.ctx.deps().em.findOneOrFail(ProviderConnection, { program: f.programId });
    expect(row.apiKeySealed).toMatch(/^v1:old:/);
    expect(row.apiKeySealed).not.toContain(API_KEY);
    expect(await openProviderApiKey(h.ctx.deps(), f.programId, 'lemonsqueezy')).toBe(API_KEY);

    expect(await h.admin('PATCH', path, { api_key: null })).toMatchObject({ api_key_set: false, api_key_hint: null });
    expect(await openProviderApiKey(h.ctx.deps(), f.programId, 'lemonsqueezy')).toBeNull();
  });

  test('connecting can set the key too; re-connecting without api_key keeps it', async () => {
    const f = await createProgramFixture(h);
    const path = `/programs/${f.programId}/providers/lemonsqueezy`;
    const r = await h.admin('PUT', path, { signing_secret: 'whsec_signing_1234', api_key: API_KEY });
    expect(r).toMatchObject({ connected: true, api_key_set: true, api_key_hint: '…wxyz' });
    expect(JSON.stringify(r)).not.toContain(API_KEY);
    expect(await h.admin('PUT', path, { signing_secret: 'whsec_signing_5678' })).toMatchObject({ api_key_set: true });
  });

  test('other providers are refused with a clear message; an unknown connection is 404', async () => {
    const f = await connected(h, 'paddle');
    const r = await h.request(`/api/v1/admin/programs/${f.programId}/providers/paddle`, {
      method: 'PATCH',
      body: { api_key: API_KEY },
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/only used for lemonsqueezy .* paddle needs none/);
    const missing = await h.request(`/api/v1/admin/programs/${f.programId}/providers/lemonsqueezy`, {
      method: 'PATCH',
      body: { api_key: API_KEY },
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(missing.status).toBe(404);
  });

  test('rotation: after a new key is put first, reseal rewrites the rows; the old key can then go', async () => {
    const f = await connected(h);
    await h.admin('PATCH', `/programs/${f.programId}/providers/lemonsqueezy`, { api_key: API_KEY });
    // The admin route re-seals under the process's current key: nothing to do yet.
    expect(await h.admin('POST', '/sealed-secrets/reseal', {})).toMatchObject({ seal_key_id: 'old', resealed: 0 });
    const newKey = generateSealingKey('new');
    const rotated = createSealer(parseSealingKeys(`${newKey},${OLD_KEY}`));
    const report = await resealSecrets({ ...h.ctx.deps(), sealer: rotated });
    expect(report).toMatchObject({ sealKeyId: 'new' });
    expect(report.resealed).toBeGreaterThanOrEqual(1);
    const newOnly = createSealer(parseSealingKeys(newKey));
    expect(await openProviderApiKey({ ...h.ctx.deps(), sealer: newOnly }, f.programId, 'lemonsqueezy')).toBe(API_KEY);
    // Run again: every row is already under the new key.
    expect(await resealSecrets({ ...h.ctx.deps(), sealer: rotated })).toMatchObject({ resealed: 0 });
  });
});

describe('without DATA_ENCRYPTION_KEYS', () => {
  const h = useHarness();

  test('production mode refuses to store a key (400 naming the variable); embedded mode uses its generated key', async () => {
    const f = await connected(h);
    const r = await h.request(`/api/v1/admin/programs/${f.programId}/providers/lemonsqueezy`, {
      method: 'PATCH',
      body: { api_key: API_KEY },
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    if (h.mode === 'production') {
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(/DATA_ENCRYPTION_KEYS is not set/);
    } else {
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ api_key_set: true });
    }
  });
});
