/**
 * The service's icon: /favicon.ico (which browsers ask for on their own) and /favicon.svg, named by
 * the dashboard, the partner portal and the API reference page; the docs site's copies are the
 * same files. Both modes, over a real listener (the ICO is binary).
 */
import { readFileSync } from 'node:fs';
import { beforeAll, expect, test } from 'vitest';
import { useHarness } from '../helpers/harness.ts';

const h = useHarness();
let base = '';
beforeAll(async () => {
  base = await h.listen();
});
const docsFile = (name: string) => readFileSync(new URL(`../../docs/public/${name}`, import.meta.url));

test("GET /favicon.ico is a 32×32 icon (one PNG image), the docs site's file", async () => {
  const res = await fetch(`${base}/favicon.ico`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('image/x-icon');
  expect(res.headers.get('cache-control')).toContain('max-age=');
  const ico = Buffer.from(await res.arrayBuffer());
  // ICONDIR: reserved 0, type 1 (icon), one image; its entry: 32×32, data at offset 22.
  expect([ico.readUInt16LE(0), ico.readUInt16LE(2), ico.readUInt16LE(4)]).toEqual([0, 1, 1]);
  expect([ico[6], ico[7], ico.readUInt32LE(14), ico.readUInt32LE(18)]).toEqual([32, 32, ico.length - 22, 22]);
  expect(ico.subarray(22, 30)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(ico.equals(docsFile('favicon.ico'))).toBe(true);
});

test("GET /favicon.svg is the SVG the pages name, the docs site's file", async () => {
  const res = await fetch(`${base}/favicon.svg`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('image/svg+xml');
  const svg = await res.text();
  expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  expect(svg).toBe(docsFile('favicon.svg').toString('utf8').trim());
});

test('the dashboard, the partner portal and the API reference page name /favicon.svg', async () => {
  for (const path of ['/dashboard', '/portal/login', '/docs']) {
    const r = await h.request(path);
    expect(r.status, path).toBe(200);
    expect(r.body, path).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml"');
  }
});
