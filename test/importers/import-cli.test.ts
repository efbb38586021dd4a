/**
 * The commands of docs/moving-from-rewardful.md, run as written against a service and a fake
 * Rewardful API (the program id is the one created here; `--base-url` points at the fake): the dry
 * run reports what would be created and writes nothing, the import brings it, the report is
 * listed and downloadable, and the key appears nowhere in the output or the stored runs. The page's
 * second block does the same from Rewardful's import sheet (fixtures/rewardful/csv, `--csv-dir`).
 * The fake is on 127.0.0.1, which OUTBOUND_ALLOW_HOSTS lets the outbound URL guard reach; any other
 * private or plain-http base URL is refused (400 url_not_allowed) before anything runs.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ADMIN_TOKEN, createHarness, createProgramFixture, type Fixture, type Harness } from '../helpers/harness.ts';
import { docPage, shellBlocks } from '../helpers/doc-pages.ts';
import { run } from '../cli/admin-cli-target.ts';
import { startRewardfulFake } from './fakes/rewardful.ts';
import { rewardfulExpected } from './fixtures/rewardful/expected.ts';
import { rewardfulCsvExpected } from './fixtures/rewardful/csv/expected.ts';
import type { FakeSource } from './source-expectation.ts';

let h: Harness;
let url: string;
let fake: FakeSource;
let f: Fixture;
beforeAll(async () => {
  h = await createHarness({
    DATA_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
  });
  url = await h.listen();
  fake = await startRewardfulFake();
  f = await createProgramFixture(h);
  await rewardfulExpected.prepare!(h, f);
}, 240_000);
afterAll(async () => {
  await fake.close();
  await h.close();
});

test('the commands of the Rewardful page import through the admin CLI, the dry run first', async () => {
  const [block] = shellBlocks(docPage('moving-from-rewardful'));
  const env: Record<string, string> = { ...process.env, ADMIN_TOKEN } as Record<string, string>;
  const outputs: Array<{ stdout: string; stderr: string }> = [];
  for (const line of block!.trim().split('\n')) {
    const exported = /^export (\w+)=/.exec(line);
    if (exported) {
      env[exported[1]!] = fake.apiKey;
      continue;
    }
    expect(line).toMatch(/^npm run admin -- /);
    const args = line
      .replace(/^npm run admin -- /, '')
      .split(' ')
      .map((a) => (a === '2' ? String(f.programId) : a));
    outputs.push(
      await run(process.execPath, ['src/cli/admin.ts', ...args, '--base-url', fake.baseUrl, '--url', url], { env }),
    );
  }
  const [dry, real] = outputs.map((o) => JSON.parse(o.stdout).import);
  expect(dry.dry_run).toBe(true);
  expect(dry.report.counts).toEqual(rewardfulExpected.counts);
  expect(real.dry_run).toBe(false);
  expect(real.status).toBe('finished');
  expect(real.report.counts).toEqual(rewardfulExpected.counts);
  expect(outputs[1]!.stderr).toContain('partners 3 created');
  // The dry run wrote nothing: the import created every partner.
  const { partners } = await h.admin('GET', `/programs/${f.programId}/partners`);
  expect(partners.map((p: { email: string | null }) => p.email).sort()).toEqual(
    [...rewardfulExpected.partners.map((p) => p.email), null].sort(),
  );
  const list = await h.admin('GET', `/programs/${f.programId}/imports`);
  expect(list.imports.map((i: { id: number }) => i.id)).toEqual([real.id, dry.id]);
  const download = await fetch(`${url}/api/v1/admin/programs/${f.programId}/imports/${real.id}?download=1`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(download.headers.get('content-disposition')).toContain(`import-${real.id}.json`);
  expect(((await download.json()) as { import: { id: number } }).import.id).toBe(real.id);
  const everything = JSON.stringify([outputs, list, h.logs]);
  expect(everything).not.toContain(fake.apiKey);
});

test('the CSV commands of the Rewardful page import the sheet of a folder, the dry run first', async () => {
  const g = await createProgramFixture(h);
  await rewardfulCsvExpected.prepare(h, g);
  const block = shellBlocks(docPage('moving-from-rewardful'))[1]!;
  const dir = fileURLToPath(new URL('./fixtures/rewardful/csv/', import.meta.url));
  const outputs: Array<{ stdout: string; stderr: string }> = [];
  for (const line of block.trim().split('\n')) {
    expect(line).toMatch(/^npm run admin -- import:rewardful .*--csv-dir \.\/rewardful-sheet/);
    const args = line
      .replace(/^npm run admin -- /, '')
      .split(' ')
      .map((a) => (a === '2' ? String(g.programId) : a === './rewardful-sheet' ? dir : a));
    outputs.push(await run(process.execPath, ['src/cli/admin.ts', ...args, '--url', url], { env: cliEnv() }));
  }
  const [dry, real] = outputs.map((o) => JSON.parse(o.stdout).import);
  expect(dry.dry_run).toBe(true);
  expect(dry.report.counts).toEqual(rewardfulCsvExpected.counts);
  expect(real.status).toBe('finished');
  expect(real.report.counts).toEqual(rewardfulCsvExpected.counts);
  expect(real.report.problems.map((p: { reason: string }) => p.reason)[0]).toMatch(/^line 5: no affiliate email/);
  const { partners } = await h.admin('GET', `/programs/${g.programId}/partners`);
  expect(partners.map((p: { email: string | null }) => p.email).sort()).toEqual(
    [...rewardfulCsvExpected.partners.map((p) => p.email), null].sort(),
  );
  // Key and files together, or a folder without a CSV file: refused before a request is made.
  await expect(
    run(
      process.execPath,
      [
        'src/cli/admin.ts',
        'import:rewardful',
        '--program',
        String(g.programId),
        '--csv-dir',
        dir,
        '--api-key-env',
        'HOME',
        '--url',
        url,
      ],
      { env: cliEnv() },
    ),
  ).rejects.toMatchObject({ stderr: expect.stringContaining('not both') });
  await expect(
    run(
      process.execPath,
      [
        'src/cli/admin.ts',
        'import:rewardful',
        '--program',
        String(g.programId),
        '--csv-dir',
        fileURLToPath(new URL('./fakes/', import.meta.url)),
        '--url',
        url,
      ],
      { env: cliEnv() },
    ),
  ).rejects.toMatchObject({ stderr: expect.stringContaining('holds no .csv file') });
  expect((await h.admin('GET', `/programs/${g.programId}/imports`)).imports).toHaveLength(2);
});

const cliEnv = () => ({ ...process.env, ADMIN_TOKEN }) as Record<string, string>;

test('an unknown source or a missing key variable is refused before anything runs', async () => {
  await expect(
    run(
      process.execPath,
      ['src/cli/admin.ts', 'import:nowhere', '--program', String(f.programId), '--api-key-env', 'HOME', '--url', url],
      {
        env: { ...process.env, ADMIN_TOKEN },
      },
    ),
  ).rejects.toMatchObject({ stderr: expect.stringContaining('400') });
  await expect(
    run(
      process.execPath,
      [
        'src/cli/admin.ts',
        'import:rewardful',
        '--program',
        String(f.programId),
        '--api-key-env',
        'NO_SUCH_VAR_I39',
        '--url',
        url,
      ],
      {
        env: { ...process.env, ADMIN_TOKEN },
      },
    ),
  ).rejects.toMatchObject({ stderr: expect.stringContaining('NO_SUCH_VAR_I39 is not set') });
});

test.each([
  [
    'plain http to a loopback address not on the list',
    'http://127.0.0.2:4000/v1',
    /plain http:\/\/ goes only to hosts/,
  ],
  ['a private address', 'https://10.0.0.1/v1', /10\.0\.0\.1 is a private address/],
  ['the cloud metadata address', 'https://169.254.169.254/latest', /169\.254\.169\.254 is a cloud metadata address/],
])(
  'a base URL the outbound guard refuses (%s): 400 url_not_allowed, a plain CLI error, no run',
  async (_l, base, why) => {
    const before = (await h.admin('GET', `/programs/${f.programId}/imports`)).imports.length;
    const r = await h.request(`/api/v1/admin/programs/${f.programId}/imports`, {
      body: { source: 'rewardful', api_key: fake.apiKey, base_url: base, dry_run: true },
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'url_not_allowed', details: { field: 'base_url' } });
    expect(r.body.error.details.reason).toMatch(why);
    const env = { ...process.env, ADMIN_TOKEN, RW_KEY_I39: fake.apiKey } as Record<string, string>;
    const args = ['import:rewardful', '--program', String(f.programId), '--api-key-env', 'RW_KEY_I39', '--dry-run'];
    const cli = run(process.execPath, ['src/cli/admin.ts', ...args, '--base-url', base, '--url', url], { env });
    await expect(cli).rejects.toMatchObject({
      stderr: expect.stringMatching(new RegExp(`^error: --base-url ${base.replace(/[.]/g, '\\.')} is not allowed: `)),
    });
    await cli.catch((err: { stderr: string }) => {
      expect(err.stderr).toMatch(why);
      expect(err.stderr).toContain('OUTBOUND_ALLOW_HOSTS');
      expect(err.stderr).not.toContain('url_not_allowed');
    });
    expect((await h.admin('GET', `/programs/${f.programId}/imports`)).imports).toHaveLength(before);
  },
);
