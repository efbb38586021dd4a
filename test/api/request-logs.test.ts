import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.ts';
import { waitFor } from '../helpers/wait-for.ts';

/**
 * What the request log says, at which level: health probes at debug, a client that hangs up in the
 * middle of its body at info with the route (never "unhandled error"). pino levels: 20 debug, 30
 * info, 40 warn, 50 error.
 */
let h: Harness;
let url: URL;
beforeAll(async () => {
  h = await createHarness({ LOG_LEVEL: 'debug' });
  url = new URL(await h.listen());
});
afterAll(() => h.close());

const requestLines = (path: string) =>
  h.logs.filter((l) => (l.msg === 'request' || l.msg === 'request failed') && l.path === path);

describe('request logs', () => {
  test('health probes are logged at debug; other requests at info with their route', async () => {
    expect((await fetch(new URL('/healthz', url))).status).toBe(200);
    await waitFor(() => requestLines('/healthz').length > 0);
    expect(requestLines('/healthz').map((l) => l.level)).toEqual([20]);
    // Readiness too, while it answers (a 503 is logged as a failed request, at warn).
    const ready = await fetch(new URL('/readyz', url));
    await waitFor(() => requestLines('/readyz').length > 0);
    expect(requestLines('/readyz').map((l) => l.level)).toEqual([ready.status < 500 ? 20 : 40]);
    await fetch(new URL('/api/v1/admin/programs/1/sales', url));
    await waitFor(() => requestLines('/api/v1/admin/programs/1/sales').length > 0);
    expect(requestLines('/api/v1/admin/programs/1/sales')[0]).toMatchObject({
      level: 30,
      route: '/api/v1/admin/programs/:id/:list',
      status: 401,
    });
  });

  test('a client that closes the connection in the middle of its body is an info line with the route, not an error', async () => {
    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(
      'POST /api/v1/track/click HTTP/1.1\r\nHost: shop.example\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"affiliate_url":',
    );
    await new Promise((r) => setTimeout(r, 100));
    socket.destroy();
    await waitFor(() => requestLines('/api/v1/track/click').length > 0);
    expect(requestLines('/api/v1/track/click')[0]).toMatchObject({
      level: 30,
      route: '/api/v1/track/click',
      status: 400,
    });
    expect(h.logs.filter((l) => Number(l.level) >= 50)).toEqual([]);
  });
});
