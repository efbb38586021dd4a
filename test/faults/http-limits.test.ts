/**
 * Request-size and slow-client behaviour of the real server process: oversized bodies are refused
 * with 413 whether or not a Content-Length announces them (and change nothing), and clients that
 * send headers and then dribble the body do not hold up anybody else; a client that never finishes
 * its headers or body is answered 408 and disconnected after the configured timeouts.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createFaultEnv, send, bearer, sleep, type FaultEnv } from './fault-env.ts';

let env: FaultEnv;
beforeAll(async () => {
  env = await createFaultEnv({ roles: ['serve'], customers: 50, partners: 2 });
});
afterAll(async () => {
  await env?.close();
});

async function rowCounts(): Promise<string> {
  const { rows } = await env.db.pool
    .query(`select (select count(*) from sale) s, (select count(*) from click) c, (select count(*) from customer) cu,
    (select count(*) from refund) r, (select count(*) from webhook_event) w, (select count(*) from test_event) t, (select count(*) from program) p`);
  return JSON.stringify(rows[0]);
}

/** A JSON object of about `bytes` bytes that is otherwise a plausible request. */
const bigJson = (bytes: number, base: Record<string, unknown>) =>
  JSON.stringify({ ...base, line_items: { pad: 'x'.repeat(bytes) } });

/** Sends the body as a stream: chunked transfer encoding, no Content-Length to trust. */
async function sendChunked(
  path: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: any }> {
  const bytes = new TextEncoder().encode(body);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 16_384) controller.enqueue(bytes.subarray(i, i + 16_384));
      controller.close();
    },
  });
  try {
    const res = await fetch(`${env.http.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    return { status: res.status, body: await res.json().catch(() => null) };
  } catch (err) {
    return { status: 0, body: String((err as Error).message) };
  }
}

test('oversized bodies → 413 payload_too_large, with or without Content-Length, nothing stored', async () => {
  const f = env.fixture;
  const before = await rowCounts();
  const cases: Array<[string, string, Record<string, string>]> = [
    [
      '/api/v1/track/sale',
      bigJson(70_000, { transaction_id: 'big', amount_cents: 100, customer_key: f.customerKey(1) }),
      bearer(f.liveKey),
    ],
    ['/api/v1/track/refund', bigJson(70_000, { transaction_id: 'big' }), bearer(f.liveKey)],
    ['/api/v1/track/lead', bigJson(70_000, { customer_key: 'big', click_id: f.clickId(1) }), bearer(f.liveKey)],
    ['/api/v1/track/click', bigJson(70_000, { affiliate_url: `https://shop.example/?aff=${f.partnerCodes[0]}` }), {}],
    ['/api/v1/track/test', bigJson(70_000, { program_id: f.programId }), bearer(f.testKey)],
    ['/api/v1/admin/programs', bigJson(70_000, { name: 'big' }), { authorization: `Bearer ${env.adminToken}` }],
    [
      `/api/v1/webhooks/stripe/${f.programId}`,
      bigJson(1_100_000, { id: 'evt_big', type: 'checkout.session.completed' }),
      { 'stripe-signature': 't=1,v1=00' },
    ],
  ];
  for (const [path, body, headers] of cases) {
    const announced = await send(env.http.url, path, { body, headers });
    expect(announced.status, `${path} with Content-Length`).toBe(413);
    expect(announced.body.error).toMatchObject({ code: 'payload_too_large', status: 413 });
    const streamed = await sendChunked(path, body, headers);
    expect(streamed.status, `${path} chunked`).toBe(413);
    expect(streamed.body?.error?.code).toBe('payload_too_large');
    // The refused body is never read to its end: the 413 closes its connection, so the client's
    // next requests do not land on a dropped keep-alive socket.
    for (let k = 0; k < 2; k++)
      expect((await send(env.http.url, '/healthz')).status, `request after ${path}`).toBe(200);
  }
  expect(await rowCounts()).toBe(before);
  // A body just under the limit is read normally (here: a valid sale).
  const ok = await send(env.http.url, '/api/v1/track/sale', {
    body: bigJson(60_000, { transaction_id: 'almost-big', amount_cents: 100, customer_key: f.customerKey(1) }),
    headers: bearer(f.liveKey),
  });
  expect(ok.status).toBe(200);
});

test('slow clients dribbling their bodies do not block other requests', async () => {
  const f = env.fixture;
  const { port } = new URL(env.http.url);
  // Trailing whitespace (valid JSON) makes each body about 200 bytes.
  const body = JSON.stringify({ transaction_id: 'slow-0', amount_cents: 2_500, customer_key: f.customerKey(2) }).padEnd(
    200,
    ' ',
  );
  const slow: Array<{ socket: Socket; response: Promise<string>; answered: () => boolean }> = [];
  // 20 connections: headers sent at once, then one byte of body every 50 ms (about 10 s each).
  for (let k = 0; k < 20; k++) {
    const b = body.replace('slow-0', `slow-${k}`);
    const socket = connect(Number(port), '127.0.0.1');
    let text = '';
    const response = new Promise<string>((resolve) => {
      socket.on('data', (d) => {
        text += d.toString();
      });
      socket.on('close', () => resolve(text));
      socket.on('error', () => resolve(text));
    });
    socket.write(
      `POST /api/v1/track/sale HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${f.liveKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(b)}\r\nConnection: close\r\n\r\n`,
    );
    void (async () => {
      for (const ch of b) {
        if (socket.destroyed) return;
        socket.write(ch);
        await sleep(50);
      }
    })();
    slow.push({ socket, response, answered: () => text.length > 0 || socket.destroyed });
  }
  await sleep(300);
  // Meanwhile ordinary requests are answered.
  const started = Date.now();
  const latencies: number[] = [];
  for (let i = 0; i < 30; i++) {
    const r =
      i % 2
        ? await send(env.http.url, '/healthz')
        : await send(env.http.url, '/api/v1/track/sale', {
            body: { transaction_id: `fast-${i}`, amount_cents: 1_000, customer_key: f.customerKey(3) },
            headers: bearer(f.liveKey),
          });
    expect(r.status, `${i}: ${r.error}`).toBe(200);
    latencies.push(r.ms);
  }
  const elapsed = Date.now() - started;
  // All answered while the slow bodies were still arriving: no slow request has been answered or closed yet.
  expect(slow.filter((s) => s.answered())).toHaveLength(0);
  // The slow requests complete normally once their bodies are in.
  const responses = await Promise.all(slow.map((s) => s.response));
  expect(responses.filter((t) => t.startsWith('HTTP/1.1 200'))).toHaveLength(20);
  console.log(
    `slow clients: 30 ordinary requests in ${elapsed} ms (max ${Math.round(Math.max(...latencies))} ms) while 20 bodies dribbled in; all 20 slow sales then answered 200`,
  );
});

/** A raw connection that writes `head` at once, then `drip` one character every `everyMs` until closed. */
function slowClient(
  port: number,
  head: string,
  drip: string,
  everyMs: number,
): { done: Promise<{ text: string; closedByServer: boolean }>; socket: Socket } {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  let ended = false;
  const done = new Promise<{ text: string; closedByServer: boolean }>((resolve) => {
    socket.on('data', (d) => {
      text += d.toString();
    });
    socket.on('end', () => {
      ended = true;
    });
    socket.on('close', () => resolve({ text, closedByServer: ended || text.length > 0 }));
    socket.on('error', () => resolve({ text, closedByServer: true }));
  });
  socket.write(head);
  void (async () => {
    for (const ch of drip) {
      await sleep(everyMs);
      if (socket.destroyed) return;
      socket.write(ch);
    }
  })();
  return { done, socket };
}

test('REQUEST_TIMEOUT_MS / HEADERS_TIMEOUT_MS: a client that never finishes its headers or body is answered 408 and cut off', async () => {
  const f = env.fixture;
  // Small deadlines on a second process (Node's defaults are 60 s for headers and 300 s for a request).
  const svc = await env.start('serve', { REQUEST_TIMEOUT_MS: '3000', HEADERS_TIMEOUT_MS: '1500' });
  // A client gives up after 25 s: well before Node's defaults would close anything.
  const within = <T>(p: Promise<T>, socket: Socket) =>
    Promise.race([
      p,
      sleep(25_000).then(() => {
        socket.destroy();
        return { text: '', closedByServer: false };
      }),
    ]);

  // 1. Headers started and never finished.
  const stalled = slowClient(svc.port, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ', '', 0);
  // 2. Headers dribbled one byte every 200 ms, ~40 s worth of them.
  const dribbled = slowClient(
    svc.port,
    'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n',
    'X-Slow: '.padEnd(200, 'a'),
    200,
  );
  // 3. Headers complete, the body dribbled for ~40 s: past REQUEST_TIMEOUT_MS.
  const body = JSON.stringify({
    transaction_id: 'timeout-sale',
    amount_cents: 2_500,
    customer_key: f.customerKey(4),
    pad: 'x'.repeat(200),
  });
  const slowBody = slowClient(
    svc.port,
    `POST /api/v1/track/sale HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${f.liveKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    body,
    200,
  );

  // Meanwhile the process serves ordinary requests.
  expect((await send(svc.url, '/healthz')).status).toBe(200);

  const results = await Promise.all([
    within(stalled.done, stalled.socket),
    within(dribbled.done, dribbled.socket),
    within(slowBody.done, slowBody.socket),
  ]);
  for (const [i, r] of results.entries()) {
    expect(r.closedByServer, `case ${i + 1} still open after 25 s`).toBe(true);
    expect(r.text, `case ${i + 1}`).toMatch(/^HTTP\/1\.1 408 /);
  }
  const { rows } = await env.db.pool.query(`select count(*)::int as n from sale where transaction_id = 'timeout-sale'`);
  expect(rows[0].n).toBe(0);
  expect((await send(svc.url, '/healthz')).status).toBe(200);
});
