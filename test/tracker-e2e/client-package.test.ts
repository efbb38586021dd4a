/**
 * The installable client package (`tracker/package.json`) as a merchant gets it: packed with
 * `npm pack`, installed from the tarball into an empty project, then used against the running
 * service from Node (server client, typed import, `tracker` bin) and from a page Vite builds with
 * the package's loader, in Chromium.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { createHarness, createProgramFixture, type Fixture, type Harness } from '../helpers/harness.ts';
import { REPO_ROOT } from '../helpers/service-process.ts';
import { runToExit } from '../helpers/run-process.ts';
import { browserTestsEnabled, launchChromium, openPage } from '../tracker/browser-harness.ts';
import { startTestServer, type TestServer } from '../tracker/test-http-server.ts';
import { rows } from './e2e-helpers.ts';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'tracker/package.json'), 'utf8'));
const NODE_BIN = dirname(process.execPath);
let work: string;
let project: string;
let h: Harness;
let base: string;
let f: Fixture;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'client-package-'));
  project = join(work, 'shop');
  // `npm pack` runs the package's prepack script: the one build script.
  const env = { PATH: `${NODE_BIN}:${process.env.PATH}` };
  const pack = await runToExit('npm', ['pack', '--pack-destination', work, '--json', join(REPO_ROOT, 'tracker')], env);
  expect(pack.code, pack.output).toBe(0);
  const tarball = join(
    work,
    readdirSync(work).find((n) => n.endsWith('.tgz'))!,
  );
  execFileSync('mkdir', ['-p', project]);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'shop', private: true, type: 'module' }));
  // No runtime dependencies: installs offline, without a registry.
  const install = await runToExit(
    'sh',
    ['-c', `cd ${project} && npm install --offline --no-audit --no-fund ${tarball}`],
    env,
  );
  expect(install.code, install.output).toBe(0);
  h = await createHarness();
  base = await h.listen();
  f = await createProgramFixture(h, { domain: '127.0.0.1' });
});
afterAll(async () => {
  await h?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the package declares what a dependency needs, and has no runtime dependencies', () => {
  expect(pkg.name).toBeTruthy();
  expect(pkg.version).toMatch(/^\d+\.\d+\.\d+$/);
  expect(pkg.engines.node).toBe('>=18');
  expect(pkg.dependencies).toBeUndefined();
  expect(pkg.exports['.'].types).toBeDefined();
  const installed = join(project, 'node_modules', pkg.name);
  const files = readdirSync(installed, { recursive: true }).map(String).sort();
  expect(files).toEqual(
    expect.arrayContaining([
      'dist/client.js',
      'dist/loader.js',
      'dist/cli.js',
      'dist/tracker.js',
      'dist/types/client.d.ts',
      'dist/types/loader.d.ts',
      'package.json',
    ]),
  );
  // Only the built files travel, never the sources or the build script.
  expect(files.filter((p) => p.endsWith('.ts') && !p.endsWith('.d.ts'))).toEqual([]);
});

test('from Node: the installed server client records a sale on the running service', async () => {
  writeFileSync(
    join(project, 'sale.mjs'),
    `
import { createTrackerClient } from '${pkg.name}';
const client = createTrackerClient({ apiKey: process.env.KEY, apiUrl: process.env.API });
const click = await client.trackClick({ affiliateUrl: 'https://127.0.0.1/?aff=' + process.env.CODE });
const lead = await client.trackLead({ customerExternalId: 'user_pkg', clickId: click.data.click_id });
const sale = await client.trackSale({ customerExternalId: 'user_pkg', amount: 4900, invoiceId: 'inv_pkg_1' });
console.log(JSON.stringify({ click: click.ok, lead: lead.ok, sale }));
`,
  );
  const r = await runToExit(process.execPath, [join(project, 'sale.mjs')], {
    KEY: f.liveKey,
    API: base,
    CODE: f.partnerCode,
  });
  expect(r.code, r.output).toBe(0);
  const out = JSON.parse(r.output.trim().split('\n').at(-1)!);
  expect(out.click).toBe(true);
  expect(out.lead).toBe(true);
  expect(out.sale.ok).toBe(true);
  const sales = await rows(h).sales(f.programId);
  expect(sales).toHaveLength(1);
  expect(out.sale.data.sale_id).toBe(sales[0]!.id);
});

test('from Node: the `tracker` bin of the installed package checks the key', async () => {
  const r = await runToExit(join(project, 'node_modules/.bin/tracker'), ['status'], {
    PATH: `${NODE_BIN}:${process.env.PATH}`,
    TRACKER_API_KEY: f.liveKey,
    TRACKER_API_URL: base,
  });
  expect(r.code, r.output).toBe(0);
  expect(r.output).not.toContain(f.liveKey);
});

test("the package's types: a TypeScript consumer type-checks against the installed package, and a wrong field fails", async () => {
  const { default: ts } = await import('typescript');
  const check = (source: string) => {
    const file = join(project, 'check.ts');
    writeFileSync(file, source);
    const program = ts.createProgram([file], {
      noEmit: true,
      strict: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
    });
    return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  };
  expect(
    check(`import { createTrackerClient, type TrackSaleInput } from '${pkg.name}';
import { loadTracker } from '${pkg.name}/loader';
const sale: TrackSaleInput = { customerExternalId: 'u', amount: 100, invoiceId: 'i' };
export const run = () => createTrackerClient({ apiKey: 'k' }).trackSale(sale);
export const load = () => loadTracker({ programId: 1 });
`),
  ).toEqual([]);
  expect(
    check(`import type { TrackSaleInput } from '${pkg.name}';
export const sale: TrackSaleInput = { customerExternalId: 'u', amount: 100, invoice: 'i' };
`).join('\n'),
  ).toMatch(/invoice/);
});

test.runIf(browserTestsEnabled())(
  'from a Vite-built page: the installed loader records the click of a partner link',
  async () => {
    writeFileSync(
      join(project, 'index.html'),
      '<!doctype html><html><head><meta charset="utf-8"><script type="module" src="/main.js"></script></head><body>shop</body></html>',
    );
    writeFileSync(
      join(project, 'main.js'),
      `import { loadTracker } from '${pkg.name}/loader';
const params = new URLSearchParams(location.search);
window.started = loadTracker({ programId: Number(params.get('program')), scriptUrl: params.get('script') })
  .then((t) => { window.shopTracker = t; return true; }, (err) => String(err));
`,
    );
    const { build } = await import('vite');
    await build({
      root: project,
      logLevel: 'silent',
      configFile: false,
      build: { outDir: join(project, 'dist'), emptyOutDir: true },
    });
    const site: TestServer = await startTestServer();
    const browser = await launchChromium();
    try {
      const dist = join(project, 'dist');
      for (const file of readdirSync(dist, { recursive: true }).map(String)) {
        if (!file.includes('.')) continue;
        const body = readFileSync(join(dist, file), 'utf8');
        site.on('GET', `/${relative(dist, join(dist, file))}`, {
          body,
          contentType: file.endsWith('.js') ? 'text/javascript' : 'text/html',
        });
      }
      site.on('GET', '/', { body: readFileSync(join(dist, 'index.html'), 'utf8'), contentType: 'text/html' });
      site.on('GET', '/favicon.ico', { status: 204 });
      const { context, page, pageErrors } = await openPage(browser);
      const landing = `${site.url}/?aff=${f.partnerCode}&program=${f.programId}&script=${encodeURIComponent(`${base}/tracker.js`)}`;
      await page.goto(landing);
      await page.waitForFunction(() => 'started' in window);
      expect(await page.evaluate(() => (window as unknown as { started: Promise<unknown> }).started)).toBe(true);
      type ShopWindow = { shopTracker: { getData(): Record<string, unknown> } };
      // The click is reported after the script starts: wait for its answer.
      await page.waitForFunction(() => (window as unknown as ShopWindow).shopTracker.getData().hasAttribution === true);
      const data = await page.evaluate(() => (window as unknown as ShopWindow).shopTracker.getData());
      expect(data).toMatchObject({ programId: f.programId, hasAttribution: true });
      const clicks = await rows(h).clicks(f.programId);
      expect(clicks.map((c) => c.id)).toContain(data.clickId);
      expect(pageErrors).toEqual([]);
      await context.close();
    } finally {
      await browser.close();
      await site.close();
    }
  },
);
