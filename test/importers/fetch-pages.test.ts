/**
 * The paging fetch every reader shares (src/importers/fetch-pages.ts), against a plain local
 * server: Retry-After in seconds or as a date, a source that keeps answering 429, a source that
 * cannot be reached, and an answer that is not JSON, each reported plainly.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { createSourceHttp, retryAfterMs } from '../../src/importers/fetch-pages.ts';

let close: (() => Promise<void>) | undefined;
afterEach(() => close?.());

async function serve(answer: (n: number) => { status: number; body: string; headers?: Record<string, string> }) {
  let n = 0;
  const server = createServer((_req, res) => {
    const a = answer(++n);
    res.writeHead(a.status, a.headers).end(a.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () => new Promise((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('Retry-After is read as seconds or as an HTTP date; absent or unreadable waits a second', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  expect(retryAfterMs('2', now)).toBe(2000);
  expect(retryAfterMs('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
  expect(retryAfterMs('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
  expect(retryAfterMs(null, now)).toBe(1000);
  expect(retryAfterMs('soon', now)).toBe(1000);
});

test('a source that keeps answering 429 is given up on after the allowed waits, with a plain error', async () => {
  const url = await serve(() => ({ status: 429, body: '{}', headers: { 'retry-after': '0' } }));
  const http = createSourceHttp({ label: 'Acme', baseUrl: url, headers: {}, maxRetries: 2 });
  await expect(http.get('/items')).rejects.toThrow('Acme GET /items: still rate-limited after 2 waits (429)');
});

test('a server error and a non-JSON answer name the source, the path and what came back', async () => {
  const url = await serve((n) =>
    n === 1 ? { status: 500, body: '{"message":"database unavailable"}' } : { status: 200, body: '<html>' },
  );
  const http = createSourceHttp({ label: 'Acme', baseUrl: `${url}/api/`, headers: {} });
  await expect(http.get('/items', { page: 1 })).rejects.toThrow('Acme GET /api/items: 500 database unavailable');
  await expect(http.get('/items')).rejects.toThrow('Acme GET /api/items: the answer is not JSON');
});

test('an unreachable source is reported with its address, and the key never appears in a message', async () => {
  const url = await serve(() => ({ status: 401, body: '{"error":"bad key"}' }));
  const http = createSourceHttp({ label: 'Acme', baseUrl: url, headers: { authorization: 'Bearer sk_secret_123' } });
  const refused = await http.get('/items').catch((e: Error) => e.message);
  expect(refused).toBe('Acme GET /items: Acme refused the API key (401: bad key); check the key and its permissions');
  await close!();
  close = undefined;
  const gone = await http.get('/items').catch((e: Error) => e.message);
  expect(gone).toMatch(new RegExp(`^Acme GET /items: could not reach ${url}`));
  expect(gone).not.toContain('sk_secret_123');
});
