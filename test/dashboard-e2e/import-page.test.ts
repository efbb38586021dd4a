/**
 * The Import page in a real Chromium against the real server and a fake of Tolt's API on
 * 127.0.0.1 (test/importers/fakes/tolt.ts serving test/importers/fixtures/tolt, whose README says
 * where its shapes come from; OUTBOUND_ALLOW_HOSTS lets the URL guard reach it): the operator
 * picks Tolt, pastes the key in its `<program id>:<key>` form, points the advanced base URL at the
 * fake, runs a dry run (counts, the row not brought and why, the balances beside Tolt's; nothing
 * written), then the import (its progress while it runs, then what it created, the partners on
 * the Partners page), downloads the stored
 * report and sees both runs listed. A refused base URL is said plainly; an analyst has no Import
 * tab. axe-core finds no violation of any impact on the page.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, createHarness, type Harness } from '../helpers/harness.ts';
import { addStaff, STAFF_PASSWORD } from '../helpers/staff.ts';
import { browserTestsEnabled, launchChromium } from '../tracker/browser-harness.ts';
import { generateSealingKey } from '../../src/core/shared/sealed-secrets.ts';
import { toltExpected } from '../importers/fixtures/tolt/e2e-expected.ts';
import { startFakeTolt } from '../importers/fakes/tolt.ts';
import type { FakeSource } from '../importers/fakes/fake-server.ts';
import { PROGRAM, toltFixture } from '../importers/fixtures/tolt/api.ts';
import { expectAccessible, openPage, shot } from './page-checks.ts';
import { tab } from './webhook-log-journey.ts';

const SHOTS = process.env.SCREENSHOTS_DIR ?? join(tmpdir(), 'import-page-e2e');

let h: Harness;
let base: string;
let browser: Browser;
let fake: FakeSource;
/** Tolt's key as the page asks for it: the program id, a colon, the API key. */
const KEY = `${PROGRAM}:tolt_page_key`;
const problems: string[] = [];

/** The cells of the counts table of the report shown for `runId`, by kind: [created, skipped, not brought]. */
async function countsOf(page: Page, runId: number): Promise<Record<string, number[]>> {
  const rows = page.locator(`section[data-import-id="${runId}"] tr[data-kind]`);
  const out: Record<string, number[]> = {};
  for (const row of await rows.all()) {
    const cells = await row.locator('td').allTextContents();
    out[(await row.getAttribute('data-kind'))!] = cells.slice(1).map(Number);
  }
  return out;
}

describe.runIf(browserTestsEnabled())('the Import page', () => {
  beforeAll(async () => {
    h = await createHarness({ DATA_ENCRYPTION_KEYS: generateSealingKey('e2e'), OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
    base = await h.listen();
    browser = await launchChromium();
    fake = await startFakeTolt(toltFixture, { key: 'tolt_page_key' });
  });
  afterAll(async () => {
    await fake?.close();
    await browser?.close();
    await h?.close();
  });

  test('a dry run shows what Tolt would bring, the import brings it', { timeout: 180_000 }, async () => {
    const { program } = await h.admin('POST', '/programs', { name: 'Dunder Mifflin' });
    const op = await openPage(browser, 1440, 900, problems);
    // A dry run and an import each read the whole fake: room for a loaded machine.
    op.setDefaultTimeout(30_000);
    await op.goto(`${base}/dashboard`);
    await op.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await op.getByRole('button', { name: 'Sign in' }).click();
    await op.getByRole('heading', { name: 'Programs' }).waitFor();
    await op.goto(`${base}/dashboard/programs/${program.id}`);
    await tab(op, 'Import');
    await op.getByRole('heading', { name: 'Import from another tool' }).waitFor();
    await op.getByText('No import yet.').waitFor();

    await op.getByLabel('Import from').selectOption({ label: 'Tolt' });
    await op.getByText('Your Tolt program id, a colon, then a Tolt API key').waitFor();
    expect(await op.getByLabel('Tolt API key').getAttribute('type')).toBe('password');
    expect(await op.getByRole('button', { name: 'Import', exact: true }).isDisabled()).toBe(true);
    await op.getByLabel('Tolt API key').fill(KEY);
    await op.getByText('Advanced').click();

    // A base URL the outbound guard refuses is said plainly, and nothing runs.
    await op.getByLabel(/^Address of the Tolt API/).fill('http://127.0.0.2:9/v1');
    await op.getByRole('button', { name: 'Dry run', exact: true }).click();
    await op.getByText(/^That API address is not allowed: plain http:\/\/ goes only to hosts/).waitFor();
    expect((await h.admin('GET', `/programs/${program.id}/imports`)).imports).toEqual([]);
    await expectAccessible(op, 'import page, refused address', { strict: true });

    await op.getByLabel(/^Address of the Tolt API/).fill(fake.url);
    await op.getByRole('button', { name: 'Dry run', exact: true }).click();
    await op.getByText(/^Dry run finished: 17 records would be created, 0 skipped, 1 not brought\.$/).waitFor();
    const [dry] = (await h.admin('GET', `/programs/${program.id}/imports`)).imports;
    expect(dry).toMatchObject({ dry_run: true, status: 'finished' });
    const counts = Object.fromEntries(
      Object.entries(toltExpected.counts).map(([k, c]) => [k, [c.created, c.skipped, c.problems]]),
    );
    expect(await countsOf(op, dry.id)).toEqual(counts);
    const report = op.locator(`section[data-import-id="${dry.id}"]`);
    await report.getByRole('columnheader', { name: 'Would be created' }).waitFor();
    // The GBP commission is not brought (the deployment takes USD, EUR, VND), with the reason.
    const problem = report.getByRole('row', { name: /comm_7GbpGGGGGGGGGGGGGGGGGGG/ });
    expect(await problem.textContent()).toMatch(/Commissions.*comm_7Gbp.*GBP/);
    // Michael's balance beside Tolt's, in dollars; Dwight's GBP 30.00 owed there, none here.
    await report.getByRole('row', { name: /part_s7mbzRGn46BhVgNFHD6fDgXW 14\.70 USD 14\.70 USD Yes/ }).waitFor();
    await report.getByRole('row', { name: /part_9Zx8Cv7Bn6Mm5Ll4Kk3Jj2Hh 30\.00 GBP 0\.00 GBP No/ }).waitFor();
    expect((await h.admin('GET', `/programs/${program.id}/partners`)).partners).toEqual([]);
    await expectAccessible(op, 'import page, dry run report', { strict: true });
    await shot(SHOTS, op, 'import-dry-run');

    // The import itself: its progress while Tolt makes it wait (a 429, Retry-After 2 s), then what
    // it created; the partners are there.
    fake.rateLimitOnce('/v1/commissions', 2);
    await op.getByRole('button', { name: 'Import', exact: true }).click();
    const progress = op.getByRole('status').filter({ hasText: 'Reading Tolt…' });
    await progress.waitFor();
    expect(await progress.textContent()).toMatch(
      /Reading Tolt… \d+ created, \d+ skipped and\s+\d+ not brought so far\./,
    );
    expect(await op.getByRole('button', { name: 'Dry run', exact: true }).isDisabled()).toBe(true);
    await op.getByText(/^Import finished: 17 records created, 0 skipped, 1 not brought\.$/).waitFor();
    const [real] = (await h.admin('GET', `/programs/${program.id}/imports`)).imports;
    expect(real).toMatchObject({ dry_run: false, status: 'finished', created_count: 17 });
    expect(await countsOf(op, real.id)).toEqual(counts);
    await op
      .locator(`section[data-import-id="${real.id}"]`)
      .getByRole('row', { name: /Michael Scott/ })
      .waitFor();
    const listed = op.getByRole('region', { name: 'Past imports' }).locator('tbody tr');
    expect(await listed.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-import-id')))).toEqual([
      String(real.id),
      String(dry.id),
    ]);
    expect(await listed.first().textContent()).toMatch(/Tolt\s*Import\s*Finished\s*17\s*0\s*1/);
    const href = await op.getByRole('link', { name: `Download the report of import ${real.id}` }).getAttribute('href');
    const file = await op.context().request.get(`${base}${href}`);
    expect(file.headers()['content-disposition']).toContain(`import-${real.id}.json`);
    expect((await file.json()).import).toMatchObject({ id: real.id, created_count: 17 });
    expect(await op.getByLabel('Tolt API key').inputValue()).toBe('');
    await expectAccessible(op, 'import page, import report', { strict: true });
    await shot(SHOTS, op, 'import-done');

    await tab(op, 'Partners');
    for (const p of toltExpected.partners) await op.getByRole('cell', { name: p.email }).first().waitFor();

    // An analyst (read only) is not offered the page.
    await addStaff(h, program.id, 'ana@dundermifflin.example', 'analyst');
    const an = await openPage(browser, 1280, 900, problems);
    await an.goto(`${base}/dashboard/programs/${program.id}`);
    await an.getByLabel('Email').fill('ana@dundermifflin.example');
    await an.getByLabel('Password').fill(STAFF_PASSWORD);
    await an.getByRole('button', { name: 'Continue with email' }).click();
    const nav = an.getByRole('navigation', { name: 'Program pages' });
    await nav.getByRole('link', { name: 'Partners', exact: true }).waitFor();
    expect(await nav.getByRole('link', { name: 'Import', exact: true }).count()).toBe(0);
    await an.context().close();
    await op.context().close();
    expect(problems).toEqual([]);
  });
});
