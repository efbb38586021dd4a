/**
 * Real headless Chromium for the browser tracker tests: Debian's `chromium`, driven by
 * playwright-core. Without the binary the browser suites are not run and say so loudly, except
 * under CI where they run and fail.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Hostnames the tests use to exercise the cookie `Domain` rule, resolved to the loopback address
 * (the port stays the one in the URL).
 */
export const TEST_HOST_RULES = '--host-resolver-rules=MAP *.test 127.0.0.1, MAP *.co.uk 127.0.0.1';

/** Whether the browser suites should run; call once at module level and pass to `describe.runIf`. */
export function browserTestsEnabled(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  if (process.env.CI) return true; // run and fail: CI must have Chromium
  console.warn(`browser tests NOT run: ${CHROMIUM_PATH} missing (install Debian's chromium; CI requires it)`);
  return false;
}

export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS, ...extraArgs] });
}

/** A fresh context (own cookie jar) whose uncaught page errors are collected, never ignored. */
export async function openPage(
  browser: Browser,
): Promise<{ context: BrowserContext; page: Page; pageErrors: Error[] }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(10_000); // below the suites' test timeout, so a stuck wait names itself
  const pageErrors: Error[] = [];
  page.on('pageerror', (err) => pageErrors.push(err));
  return { context, page, pageErrors };
}
