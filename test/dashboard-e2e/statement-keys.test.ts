/**
 * The partner portal in a real Chromium: a paid partner sees the service's statement-signing keys,
 * downloads statement.csv, and the client's verifier accepts the download with the published keys.
 * axe-core on the page, no page error or CSP violation.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { clickAndLead, bearer, createHarness, createProgramFixture, type Harness } from '../helpers/harness.ts';
import { browserTestsEnabled, launchChromium } from '../tracker/browser-harness.ts';
import { invite } from '../portal/portal-sessions.ts';
import { generateSealingKey } from '../../src/core/shared/sealed-secrets.ts';
import { verifyStatement } from '../../tracker/src/verify-statement.ts';
import { expectAccessible, shot } from './page-checks.ts';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = process.env.SCREENSHOTS_DIR;

let h: Harness;
let base: string;
let browser: Browser;

describe.runIf(browserTestsEnabled())('statement keys in the partner portal', () => {
  beforeAll(async () => {
    h = await createHarness({ DATA_ENCRYPTION_KEYS: generateSealingKey('e2e') });
    base = await h.listen();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  test('a paid partner sees the keys, downloads the statement, and it verifies', { timeout: 120_000 }, async () => {
    const f = await createProgramFixture(h, { commission_rate_bps: 1000 });
    await clickAndLead(h, f, 'keys');
    const sale = await h.request('/api/v1/track/sale', {
      body: { transaction_id: 'pi_keys_1', amount_cents: 10_000, customer_key: 'keys' },
      headers: bearer(f.liveKey),
    });
    await h.admin('POST', `/programs/${f.programId}/commissions/${sale.body.commission_id}/approve`);
    await h.admin('POST', `/programs/${f.programId}/commissions/${sale.body.commission_id}/pay`);
    const { keys } = (await h.request('/.well-known/statement-keys.json')).body;

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    await context.addInitScript({ content: AXE_SOURCE });
    const pp: Page = await context.newPage();
    pp.setDefaultTimeout(15_000);
    const problems: string[] = [];
    pp.on('pageerror', (err) => problems.push(err.message));
    pp.on('console', (m) => {
      if (m.type() === 'error' && /Content.Security.Policy|Refused to/i.test(m.text())) problems.push(m.text());
    });
    await pp.goto(`${base}/portal/invite/${await invite(h, f, f.partnerId)}`);
    await pp.getByLabel('New password', { exact: false }).first().fill('keys partner password');
    await pp.getByLabel('Repeat the password').fill('keys partner password');
    await pp.getByRole('button', { name: 'Set password and sign in' }).click();
    await pp.waitForURL(`${base}/portal`);

    await pp.getByText('Check a downloaded statement yourself').click();
    const shown = pp.getByTestId('statement-keys').locator(`[data-key-id="${keys[0].key_id}"]`);
    await shown.waitFor();
    expect(await shown.textContent()).toContain(keys[0].public_key);
    await expectAccessible(pp, 'portal statement keys');
    await shot(SHOTS, pp, 'portal-statement-keys');

    const [download] = await Promise.all([
      pp.waitForEvent('download'),
      pp.getByRole('link', { name: /^statement\.csv/ }).click(),
    ]);
    const csv = readFileSync((await download.path()) as string, 'utf8');
    expect(verifyStatement(csv, keys)).toMatchObject({ ok: true, lines: 2, unsignedLines: 0 });
    expect(problems).toEqual([]);
    await context.close();
  });
});
