/**
 * What the dashboard walkthrough checks on a page (axe-core, screenshots), the page it opens, and
 * the merchant's event receiver it points an outbound event endpoint at.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * A fresh page of `width` × `height` in its own context, axe-core injected through the DevTools
 * protocol (the page's own CSP, script-src 'self', stays in force); its page errors and CSP
 * violations are added to `problems`.
 */
export async function openPage(browser: Browser, width: number, height: number, problems: string[]): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height } });
  await context.addInitScript({ content: AXE_SOURCE });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (err) => problems.push(`${page.url()}: ${err.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content.Security.Policy|Refused to/i.test(m.text()))
      problems.push(`${page.url()}: ${m.text()}`);
  });
  return page;
}

/** axe-core on the current page: no serious or critical violation (`strict`: none at all, of any impact). */
export async function expectAccessible(page: Page, label: string, o: { strict?: boolean } = {}): Promise<void> {
  await page.waitForLoadState('networkidle');
  const impacts = o.strict ? ['minor', 'moderate', 'serious', 'critical'] : ['serious', 'critical'];
  const violations = await page.evaluate(async (impacts) => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            ctx: Document,
            o: object,
          ): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: unknown }> }> }>;
        };
      }
    ).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter((v) => impacts.includes(v.impact))
      .map((v) => `${v.id} (${v.impact}): ${JSON.stringify(v.nodes.slice(0, 3).map((n) => n.target))}`);
  }, impacts);
  expect(violations, `axe on ${label}`).toEqual([]);
}

/** A full-page screenshot into `dir` (none when `dir` is unset). */
export async function shot(dir: string | undefined, page: Page, name: string): Promise<void> {
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}

export type Receiver = {
  url: string;
  received: Array<{ headers: IncomingHttpHeaders; body: string }>;
  close(): Promise<void>;
};

/** A merchant's endpoint on 127.0.0.1: records every request and answers 200 `thanks`. */
export async function startReceiver(): Promise<Receiver> {
  const received: Receiver['received'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/partner-events`,
    received,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
