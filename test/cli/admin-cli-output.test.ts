/**
 * The admin CLI for people and for scripts: JSON when stdout is not a terminal (or with `--json`),
 * tables in a terminal (a pseudo-terminal from `script`); partners come with their referral link.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ADMIN_TOKEN, createHarness, type Harness } from '../helpers/harness.ts';
import { runToExit } from '../helpers/run-process.ts';

const run = promisify(execFile);
let h: Harness;
let url: string;
beforeAll(async () => {
  h = await createHarness();
  url = await h.listen();
});
afterAll(async () => {
  await h.close();
});

/** Piped, as a script reads it. */
const admin = async (...args: string[]) => {
  const { stdout } = await run(process.execPath, ['src/cli/admin.ts', ...args, '--url', url], {
    env: { ...process.env, ADMIN_TOKEN, PUBLIC_BASE_URL: '' },
  });
  return stdout;
};
/** In a terminal, as a person reads it. */
const inTerminal = async (...args: string[]) => {
  const cmd = [process.execPath, 'src/cli/admin.ts', ...args, '--url', url].map((a) => `'${a}'`).join(' ');
  const r = await runToExit('script', ['-qfec', cmd, '/dev/null'], { ADMIN_TOKEN, TERM: 'dumb' }, 60_000);
  expect(r.code, r.output).toBe(0);
  return r.output.replace(/\r/g, '');
};

test('partners:create prints the referral link: the program site with aff, or the demo page without a domain', async () => {
  const shop = JSON.parse(await admin('programs:create', '--name', 'Linked shop', '--domain', 'shop.example'));
  const created = JSON.parse(
    await admin('partners:create', String(shop.program.id), '--code', 'ref-one', '--name', 'Ref One'),
  );
  expect(created.partner).toMatchObject({ code: 'ref-one', referral_link: 'https://shop.example/?aff=ref-one' });
  const bare = JSON.parse(await admin('programs:create', '--name', 'No domain'));
  const demo = JSON.parse(
    await admin('partners:create', String(bare.program.id), '--code', 'ref2', '--name', 'Ref Two'),
  );
  expect(demo.partner.referral_link).toBe(`${url}/demo?program=${bare.program.id}&aff=ref2`);
});

test('partners:list prints every partner of the program with its referral link', async () => {
  const { program } = JSON.parse(await admin('programs:create', '--name', 'Listed', '--domain', 'listed.example'));
  for (const code of ['a1', 'b2'])
    await admin('partners:create', String(program.id), '--code', code, '--name', code.toUpperCase());
  const { partners } = JSON.parse(await admin('partners:list', String(program.id)));
  expect(partners.map((p: { code: string; referral_link: string }) => [p.code, p.referral_link]).sort()).toEqual([
    ['a1', 'https://listed.example/?aff=a1'],
    ['b2', 'https://listed.example/?aff=b2'],
  ]);
});

test('in a terminal: a table with a header row and one row per partner, links included; --json keeps JSON', async () => {
  const { program } = JSON.parse(await admin('programs:create', '--name', 'Table shop', '--domain', 'table.example'));
  for (const code of ['t1', 't2'])
    await admin('partners:create', String(program.id), '--code', code, '--name', `Partner ${code}`);
  const out = await inTerminal('partners:list', String(program.id));
  expect(() => JSON.parse(out)).toThrow();
  const lines = out.trim().split('\n');
  const header = lines.find((l) => /^id\s/.test(l))!;
  expect(header).toMatch(/\bcode\b.*\bname\b.*\breferral_link\b/);
  expect(lines[lines.indexOf(header) + 1]).toMatch(/^-+(\s+-+)+$/);
  const rows = lines.filter((l) => /https:\/\/table\.example\/\?aff=t\d/.test(l));
  expect(rows).toHaveLength(2);
  expect(rows[0]).toMatch(/Partner t\d/);

  const one = await inTerminal('programs:show', String(program.id));
  expect(one).toMatch(/^program$/m);
  expect(one).toMatch(/^\s+domain\s+table\.example$/m);

  const json = JSON.parse(await inTerminal('partners:list', String(program.id), '--json'));
  expect(json.partners).toHaveLength(2);
});

test('a long list in a terminal stays one line per record', async () => {
  const { program } = JSON.parse(await admin('programs:create', '--name', 'Wide'));
  await admin('partners:create', String(program.id), '--code', 'w1', '--name', 'x'.repeat(200));
  const out = await inTerminal('partners:list', String(program.id));
  const row = out.split('\n').find((l) => l.includes(' w1 '))!;
  expect(row).toContain('…');
  expect(row).not.toContain('x'.repeat(60));
});
