import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { runCli } from '../../tracker/src/cli.ts';
import { findClosedPort, startTestServer, type TestServer } from './test-http-server.ts';

const API_KEY = 'sk_live_cli_0123456789';
const CLI_PATH = fileURLToPath(new URL('../../tracker/src/cli.ts', import.meta.url));

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.on('GET', '/api/v1/cli/status', { body: { program: { id: 7, name: 'Shop' }, key_mode: 'live' } });
  server.on('POST', '/api/v1/track/sale', {
    body: { success: true, message: 'Test sale recorded', data: { eventId: 3, programId: 7, test_mode: true } },
  });
});

async function run(argv: string[], env: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { env, out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('tracker CLI', () => {
  test('status prints a summary and exits 0', async () => {
    const res = await run(['status', '--api-url', server.url], { TRACKER_API_KEY: API_KEY });
    expect(res.code).toBe(0);
    expect(res.out).toContain(`OK: ${server.url} accepted the API key (HTTP 200)`);
    expect(res.out).toContain('program.name: Shop');
    expect(server.calls('/api/v1/cli/status')[0]!.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  test('status failure exits 1 with the error code and never prints the key, even when the server echoes it', async () => {
    server.on('GET', '/api/v1/cli/status', {
      status: 401,
      body: {
        data: null,
        error: {
          status: 401,
          name: 'UnauthorizedError',
          message: `unknown key ${API_KEY}`,
          details: {},
          code: 'unauthorized',
        },
      },
    });
    const res = await run(['status', `--api-key=${API_KEY}`, '--api-url', server.url]);
    expect(res.code).toBe(1);
    expect(res.err).toContain('status failed: unauthorized');
    expect(res.err).toContain('(HTTP 401)');
    expect(res.out + res.err).not.toContain(API_KEY);
  });

  test('an unreachable API exits 1 and says no response came back', async () => {
    const port = await findClosedPort();
    const res = await run(['status', '--api-key', API_KEY], { TRACKER_API_URL: `http://127.0.0.1:${port}` });
    expect(res.code).toBe(1);
    expect(res.err).toContain('(no response)');
    expect(res.out + res.err).not.toContain(API_KEY);
  });

  test('test-sale sends a test-mode sale without a customer', async () => {
    const res = await run(['test-sale', '--amount', '1250', '--currency', 'eur', '--api-url', server.url], {
      TRACKER_API_KEY: API_KEY,
    });
    expect(res.code).toBe(0);
    expect(res.out).toContain('test-sale accepted (HTTP 200): Test sale recorded');
    expect(res.out).toContain('test_mode: true');
    const body = server.calls('/api/v1/track/sale')[0]!.json as Record<string, unknown>;
    expect(body).toMatchObject({ amount_cents: 1250, currency: 'EUR', additional_data: { test_mode: true } });
    expect(body.transaction_id).toMatch(/^cli-test-/);
    expect(body).not.toHaveProperty('customer_key');
    expect(body).not.toHaveProperty('click_id');
  });

  test('test-event sends the minimal test-mode body', async () => {
    const res = await run(['test-event', '--api-url', server.url], { TRACKER_API_KEY: API_KEY });
    expect(res.code).toBe(0);
    expect(server.calls('/api/v1/track/sale')[0]!.json).toEqual({ additional_data: { test_mode: true } });
  });

  test('a success without test-mode confirmation is reported as a failure', async () => {
    server.on('POST', '/api/v1/track/sale', { body: { success: true, sale_id: 1, commission_id: 2, message: 'ok' } });
    const res = await run(['test-event', '--api-url', server.url], { TRACKER_API_KEY: API_KEY });
    expect(res.code).toBe(1);
    expect(res.err).toContain('did not confirm test mode');
  });

  test.each([
    ['no command', [], 'missing command'],
    ['unknown command', ['deploy'], 'unknown command: deploy'],
    ['unknown option', ['status', '--verbose'], "Unknown option '--verbose'"],
    ['bad amount', ['test-sale', '--amount', '49.00'], '--amount must be a positive integer'],
    ['zero amount', ['test-sale', '--amount', '0'], '--amount must be a positive integer'],
  ])('usage error: %s exits 2', async (_label, argv, message) => {
    const res = await run(argv, { TRACKER_API_KEY: API_KEY });
    expect(res.code).toBe(2);
    expect(res.err).toContain(message);
    expect(server.requests).toEqual([]);
  });

  test('a missing key exits 2 before any request', async () => {
    const res = await run(['status', '--api-url', server.url]);
    expect(res.code).toBe(2);
    expect(res.err).toContain('missing API key');
    expect(server.requests).toEqual([]);
  });

  test('--help prints usage and exits 0', async () => {
    const res = await run(['--help']);
    expect(res.code).toBe(0);
    expect(res.out).toContain('Usage: tracker <command>');
  });

  test('runs as a script under Node and sets the exit status', async () => {
    // Asynchronous on purpose: the API stand-in lives in this process.
    const env = { ...process.env, TRACKER_API_KEY: API_KEY };
    const ok = await promisify(execFile)(process.execPath, [CLI_PATH, 'status', '--api-url', server.url], { env });
    expect(ok.stdout).toContain('accepted the API key');
    expect(ok.stderr).not.toContain(API_KEY);
    server.on('GET', '/api/v1/cli/status', { status: 401, body: { error: { code: 'unauthorized', message: 'no' } } });
    const failed = await promisify(execFile)(process.execPath, [CLI_PATH, 'status', '--api-url', server.url], {
      env,
    }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain('status failed: unauthorized: no (HTTP 401)');
  });
});

describe('tracker CLI --json', () => {
  test('status and test-sale print one JSON object each, the key redacted', async () => {
    const status = await run(['status', '--json', '--api-url', server.url], { TRACKER_API_KEY: API_KEY });
    expect(status.code).toBe(0);
    expect(JSON.parse(status.out)).toEqual({
      ok: true,
      command: 'status',
      status: 200,
      api_url: server.url,
      data: { program: { id: 7, name: 'Shop' }, key_mode: 'live' },
    });
    const sale = await run(['test-sale', '--json', '--api-url', server.url], { TRACKER_API_KEY: API_KEY });
    expect(sale.code).toBe(0);
    expect(JSON.parse(sale.out)).toMatchObject({
      ok: true,
      command: 'test-sale',
      status: 200,
      test_mode_confirmed: true,
      data: { data: { test_mode: true } },
    });
  });

  test('a failure is a JSON object with the error, exit 1, and never the key', async () => {
    server.on('GET', '/api/v1/cli/status', {
      status: 401,
      body: {
        data: null,
        error: { status: 401, name: 'UnauthorizedError', message: `bad ${API_KEY}`, details: {}, code: 'unauthorized' },
      },
    });
    const res = await run(['status', '--json', '--api-url', server.url], { TRACKER_API_KEY: API_KEY });
    expect(res.code).toBe(1);
    const parsed = JSON.parse(res.out);
    expect(parsed).toMatchObject({ ok: false, command: 'status', status: 401, error: 'unauthorized: bad [redacted]' });
    expect(res.out).not.toContain(API_KEY);
  });

  test('an unconfirmed test mode is ok: true but exits 1 with test_mode_confirmed false', async () => {
    server.on('POST', '/api/v1/track/sale', { body: { success: true, data: { eventId: 3 } } });
    const res = await run(['test-event', '--json', '--api-url', server.url], { TRACKER_API_KEY: API_KEY });
    expect(res.code).toBe(1);
    expect(JSON.parse(res.out)).toMatchObject({ ok: true, test_mode_confirmed: false });
  });
});
