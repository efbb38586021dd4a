/**
 * Shared pieces of the end-to-end suites: the tracker packages against the real service
 * (`createHarness().listen()`), with pages served by that server.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Cookie, Page } from 'playwright-core';
import { expect } from 'vitest';
import { buildTracker, DEFAULT_OUTDIR } from '../../tracker/build.ts';
import { Click } from '../../src/core/entities/click.ts';
import { Commission } from '../../src/core/entities/commission.ts';
import { Customer } from '../../src/core/entities/customer.ts';
import { Sale } from '../../src/core/entities/sale.ts';
import type { Harness } from '../helpers/harness.ts';

const DAY_SECONDS = 86_400;
const SRC = join(DEFAULT_OUTDIR, '..', 'src');

function newestMtime(dir: string): number {
  return Math.max(
    ...readdirSync(dir, { withFileTypes: true }).map((d) => {
      const path = join(dir, d.name);
      return d.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs;
    }),
  );
}

/**
 * The server serves `tracker/dist/tracker.js` and builds it only when it is missing, so a bundle
 * older than the sources would be tested instead of the code under review: rebuild it then.
 */
export async function ensureFreshTrackerBundle(): Promise<void> {
  let built = 0;
  try {
    built = statSync(join(DEFAULT_OUTDIR, 'tracker.js')).mtimeMs;
  } catch {
    /* missing */
  }
  if (built < newestMtime(SRC)) await buildTracker();
}

/** Rows as the service stored them, read from its own database. */
export function rows(h: Harness) {
  const em = () => h.ctx.db.em.fork();
  return {
    clicks: (programId: number) => em().find(Click, { program: programId }, { orderBy: { createdAt: 'asc' } }),
    customers: (programId: number) => em().find(Customer, { program: programId }, { orderBy: { id: 'asc' } }),
    sales: (programId: number) => em().find(Sale, { program: programId }, { orderBy: { id: 'asc' } }),
    commission: (id: number) => em().findOneOrFail(Commission, { id }),
  };
}

export function cookie(cookies: Cookie[], name: string): Cookie | undefined {
  return cookies.find((c) => c.name === name);
}

/** The cookie expires `days` from now (two minutes of slack for the test's own run time). */
export function expectExpiryInDays(c: Cookie | undefined, days: number): void {
  expect(c).toBeDefined();
  expect(Math.abs((c as Cookie).expires - (Date.now() / 1000 + days * DAY_SECONDS))).toBeLessThan(120);
}

type TrackerWindow = Window & { tracker: Record<string, (...args: unknown[]) => unknown> };

/** Calls `window.tracker[method](...args)` in the page and returns its (awaited) result. */
export function callTracker(page: Page, method: string, ...args: unknown[]): Promise<unknown> {
  return page.evaluate(([m, a]) => (window as unknown as TrackerWindow).tracker[m as string]!(...(a as unknown[])), [
    method,
    args,
  ] as const);
}

/** Opens a page and waits until the tracker has started. */
export async function visit(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForFunction(() => 'tracker' in window);
}

/** Signs up through the demo page's form, as a visitor would; returns the page's shown answer. */
export async function signupOnPage(page: Page, customerKey: string, email: string): Promise<unknown> {
  await page.fill('#customer-key', customerKey);
  await page.fill('#email', email);
  await page.click('#signup-button');
  await page.waitForFunction(() => {
    const text = document.getElementById('result')?.textContent ?? '';
    return text !== '' && text !== 'sending...';
  });
  return JSON.parse((await page.textContent('#result')) ?? 'null');
}

/** Every request the page sent to the tracking API (preflights excluded). */
export function recordApiRequests(page: Page): string[] {
  const seen: string[] = [];
  page.on('request', (req) => {
    if (req.url().includes('/api/') && req.method() !== 'OPTIONS') seen.push(`${req.method()} ${req.url()}`);
  });
  return seen;
}
