import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ADMIN_TOKEN, createProgramFixture, type Harness } from '../helpers/harness.ts';
import { loadConfig } from '../../src/config.ts';
import { adminCli, run, startCliTarget } from './admin-cli-target.ts';

let h: Harness;
let url: string;
beforeAll(async () => {
  ({ h, url } = await startCliTarget());
});
afterAll(async () => {
  await h.close();
});
const admin = adminCli(() => url);

test('create a program, a key and a partner through the CLI, then GET /api/v1/cli/status with the key → 200', async () => {
  const { program } = await admin(
    'programs:create',
    '--name',
    'CLI shop',
    '--domain',
    'cli.example',
    '--commission-rate-bps',
    '1500',
  );
  expect(program).toMatchObject({ name: 'CLI shop', domain: 'cli.example', commission_rate_bps: 1500 });
  const key = await admin('keys:issue', String(program.id), '--mode', 'live');
  expect(key.key).toMatch(/^trk_live_/);
  const { partner } = await admin(
    'partners:create',
    String(program.id),
    '--code',
    'cli-partner',
    '--name',
    'Cli Partner',
  );
  expect(partner.code).toBe('cli-partner');
  const res = await fetch(`${url}/api/v1/cli/status`, { headers: { authorization: `Bearer ${key.key}` } });
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ program: { id: program.id, name: 'CLI shop' }, key_mode: 'live' });

  await admin('keys:retire', String(program.id), String(key.id));
  const retired = await fetch(`${url}/api/v1/cli/status`, { headers: { authorization: `Bearer ${key.key}` } });
  expect(retired.status).toBe(401);
  expect(await retired.json()).toMatchObject({ error: { code: 'api_key_rotation_required' } });
});

test('the provider secret is read from an env var, never from a flag, and never printed', async () => {
  const { program } = await admin('programs:create', '--name', 'Secrets');
  const { stdout } = await run(
    process.execPath,
    ['src/cli/admin.ts', 'providers:connect', String(program.id), 'stripe', '--secret-env', 'MY_SECRET', '--url', url],
    {
      env: { ...process.env, ADMIN_TOKEN, MY_SECRET: 'whsec_cli_secret_value' },
    },
  );
  expect(stdout).not.toContain('whsec_cli_secret_value');
  expect(JSON.parse(stdout)).toMatchObject({ connected: true, provider: 'stripe' });
});

test('a provider API key from an env var: never printed; production mode without DATA_ENCRYPTION_KEYS refuses it', async () => {
  const { program } = await admin('programs:create', '--name', 'Api key');
  const id = String(program.id);
  await run(
    process.execPath,
    ['src/cli/admin.ts', 'providers:connect', id, 'lemonsqueezy', '--secret-env', 'S', '--url', url],
    {
      env: { ...process.env, ADMIN_TOKEN, S: 'ls_signing_secret' },
    },
  );
  const args = ['src/cli/admin.ts', 'providers:api-key', id, 'lemonsqueezy', '--key-env', 'LS_KEY', '--url', url];
  const env = { ...process.env, ADMIN_TOKEN, LS_KEY: 'lsk_cli_key_0123456789abcd' };
  if (h.mode === 'production') {
    await expect(run(process.execPath, args, { env })).rejects.toMatchObject({
      stderr: expect.stringMatching(/DATA_ENCRYPTION_KEYS is not set/),
    });
  } else {
    const { stdout } = await run(process.execPath, args, { env });
    expect(stdout).not.toContain('0123456789');
    expect(JSON.parse(stdout)).toMatchObject({ api_key_set: true, api_key_hint: '…abcd' });
  }
  expect(await admin('providers:api-key', id, 'lemonsqueezy', '--clear')).toMatchObject({ api_key_set: false });
  expect(await admin('providers:show', id, 'lemonsqueezy')).toMatchObject({ api_key_set: false, api_key_hint: null });
});

test('errors exit non-zero with the error code', async () => {
  await expect(
    run(process.execPath, ['src/cli/admin.ts', 'programs:show', '999999', '--url', url], {
      env: { ...process.env, ADMIN_TOKEN },
    }),
  ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('not_found') });
  await expect(
    run(process.execPath, ['src/cli/admin.ts', 'programs:list', '--url', url], {
      env: { ...process.env, ADMIN_TOKEN: 'wrong-token-wrong-token-wrong-token' },
    }),
  ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('unauthorized') });
});

test('errors name the URL and the token source used, and what to do', async () => {
  const wrong = run(process.execPath, ['src/cli/admin.ts', 'programs:list', '--url', url], {
    env: { ...process.env, ADMIN_TOKEN: 'wrong-token-wrong-token-wrong-token' },
  });
  await expect(wrong).rejects.toMatchObject({
    stderr: expect.stringContaining(`${url} (URL from --url) refused the admin token from ADMIN_TOKEN`),
  });
  const { freePort } = await import('../helpers/service-process.ts');
  const nobody = `http://127.0.0.1:${await freePort()}`;
  const refused = run(process.execPath, ['src/cli/admin.ts', 'programs:list'], {
    env: { ...process.env, ADMIN_URL: nobody, ADMIN_TOKEN },
  });
  await expect(refused).rejects.toMatchObject({
    stderr: expect.stringMatching(
      new RegExp(`cannot reach ${nobody} \\(URL from ADMIN_URL\\): ECONNREFUSED\\. Start the server`),
    ),
  });
});

test('configuration: a bad value fails with a clear message naming the variable', () => {
  expect(() => loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x' })).toThrow(/PORT[\s\S]*DATABASE_URL/);
  expect(loadConfig({}).PORT).toBe(3000);
});

test('provider secrets through the CLI: add (from an env var), list without the secret, expire, remove', async () => {
  const { program } = await admin('programs:create', '--name', 'Rotation');
  const id = String(program.id);
  const env = { ...process.env, ADMIN_TOKEN, OLD_SECRET: 'whsec_cli_old_secret', NEW_SECRET: 'whsec_cli_new_secret' };
  await run(
    process.execPath,
    ['src/cli/admin.ts', 'providers:connect', id, 'stripe', '--secret-env', 'OLD_SECRET', '--url', url],
    { env },
  );
  const added = await run(
    process.execPath,
    ['src/cli/admin.ts', 'secrets:add', id, 'stripe', '--label', 'test', '--secret-env', 'NEW_SECRET', '--url', url],
    { env },
  );
  expect(added.stdout).not.toContain('whsec_cli_new_secret');
  const { secret } = JSON.parse(added.stdout);
  expect(secret).toEqual({
    id: expect.any(Number),
    label: 'test',
    created_at: expect.any(String),
    expires_at: null,
    fingerprint: expect.stringMatching(/^[0-9a-f]{8}$/),
  });

  const listed = await admin('secrets:list', id, 'stripe');
  expect(listed.secrets.map((s: { label: string }) => s.label)).toEqual(['live', 'test']);
  expect(JSON.stringify(listed)).not.toMatch(/whsec_cli/);

  const expired = await admin(
    'secrets:expire',
    id,
    'stripe',
    String(listed.secrets[0].id),
    '--at',
    '2030-01-01T00:00:00Z',
  );
  expect(expired.secret.expires_at).toBe('2030-01-01T00:00:00.000Z');
  expect(await admin('secrets:remove', id, 'stripe', String(secret.id))).toEqual({ removed: true });
  expect((await admin('secrets:list', id, 'stripe')).secrets).toHaveLength(1);
});

test('coupon codes, partner groups and reward rules through the CLI', async () => {
  const f = await createProgramFixture(h);
  const p = String(f.programId);
  const { code } = await admin(
    'codes:create',
    p,
    String(f.partnerId),
    '--code',
    'CLI10',
    '--provider-ids',
    'promo_1a, dsc_2b',
  );
  expect(code).toMatchObject({ code: 'CLI10', provider_ids: ['promo_1a', 'dsc_2b'] });
  expect((await admin('codes:list', p, '--partner-id', String(f.partnerId)))['partner-codes']).toHaveLength(1);
  expect((await admin('codes:disable', p, String(code.id))).code.disabled_at).toEqual(expect.any(String));

  const dir = mkdtempSync(join(tmpdir(), 'rules-'));
  const rulesFile = join(dir, 'rules.json');
  writeFileSync(rulesFile, JSON.stringify({ sale: { type: 'flat', amounts: { USD: 500 } } }));
  const { group } = await admin('groups:create', p, '--name', 'VIP', '--rules-file', rulesFile);
  expect(group).toMatchObject({ name: 'VIP', reward_rules: { sale: { type: 'flat' } } });
  expect((await admin('groups:assign', p, String(f.partnerId), String(group.id))).partner.group).toBe(group.id);
  expect((await admin('groups:update', p, String(group.id), '--rules-file', 'null')).group.reward_rules).toBeNull();
  expect((await admin('groups:list', p))['partner-groups']).toHaveLength(1);
  expect((await admin('groups:assign', p, String(f.partnerId), 'none')).partner.group).toBeNull();
  expect((await admin('rules:set', p, '--rules-file', rulesFile)).program.reward_rules).toEqual({
    sale: { type: 'flat', amounts: { USD: 500 } },
  });
  await expect(admin('rules:set', p, '--rules-file', join(dir, 'missing.json'))).rejects.toThrow(
    /cannot read reward rules/,
  );
});
