/** The merchant CLI (`tracker/src/cli.ts`) as a real process against the real service. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TestEvent } from '../../src/core/entities/test-event.ts';
import { createHarness, createProgramFixture, type Fixture, type Harness } from '../helpers/harness.ts';
import { findClosedPort } from '../tracker/test-http-server.ts';
import { rows } from './e2e-helpers.ts';

const CLI = fileURLToPath(new URL('../../tracker/src/cli.ts', import.meta.url));

let h: Harness;
let base: string;
let f: Fixture;
beforeAll(async () => {
  h = await createHarness();
  base = await h.listen();
  f = await createProgramFixture(h, { name: 'Acme Shop', domain: 'shop.example' });
});
afterAll(async () => {
  await h.close();
});

type Run = { code: number; stdout: string; stderr: string };

/** Runs the CLI with only the variables given (no TRACKER_* leaking in from the test's environment). */
function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 20_000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

function expectNoKey(run: Run, ...keys: string[]): void {
  for (const key of keys) expect(run.stdout + run.stderr).not.toContain(key);
}

const testEvents = () => h.ctx.db.em.fork().find(TestEvent, { program: f.programId }, { orderBy: { id: 'asc' } });

describe('tracker CLI against the real server', () => {
  test('status with TRACKER_API_KEY prints the program and exits 0', async () => {
    const run = await cli(['status', '--api-url', base], { TRACKER_API_KEY: f.liveKey });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain(`OK: ${base} accepted the API key (HTTP 200)`);
    expect(run.stdout).toContain(`program.id: ${f.programId}`);
    expect(run.stdout).toContain('program.name: Acme Shop');
    expect(run.stdout).toContain('key_mode: live');
    expectNoKey(run, f.liveKey);
  });

  test('test-sale with --api-key records a test event with the amount and currency, and no sale', async () => {
    const before = (await testEvents()).length;
    const run = await cli([
      'test-sale',
      '--api-key',
      f.liveKey,
      '--api-url',
      base,
      '--amount',
      '1234',
      '--currency',
      'eur',
    ]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^test-sale accepted \(HTTP 200\): /);
    expect(run.stdout).toContain('test_mode: true');
    expect(run.stdout).toContain(`programId: ${f.programId}`);
    expectNoKey(run, f.liveKey);
    const events = await testEvents();
    expect(events).toHaveLength(before + 1);
    expect(events.at(-1)).toMatchObject({
      amountCents: 1234,
      currency: 'EUR',
      transactionId: expect.stringMatching(/^cli-test-/),
    });
    expect(await rows(h).sales(f.programId)).toEqual([]);
  });

  test('test-event with TRACKER_API_URL and the test key records a test event', async () => {
    const before = (await testEvents()).length;
    const run = await cli(['test-event'], { TRACKER_API_KEY: f.testKey, TRACKER_API_URL: base });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('test-event accepted (HTTP 200)');
    expectNoKey(run, f.testKey);
    expect(await testEvents()).toHaveLength(before + 1);
  });

  test('an unknown key and a retired key exit 1 with the error code, never printing the key', async () => {
    const unknown = 'trk_live_this-key-does-not-exist-0000';
    const bad = await cli(['status', '--api-url', base], { TRACKER_API_KEY: unknown });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('status failed: unauthorized: Invalid API key (HTTP 401)');
    expectNoKey(bad, unknown);

    const extra = await h.admin('POST', `/programs/${f.programId}/keys`, { mode: 'live' });
    await h.admin('POST', `/programs/${f.programId}/keys/${extra.id}/retire`, {});
    const retired = await cli(['test-sale', `--api-key=${extra.key}`, '--api-url', base]);
    expect(retired.code).toBe(1);
    expect(retired.stderr).toMatch(/^test-sale failed: api_key_rotation_required: .+ \(HTTP 401\)/);
    expectNoKey(retired, extra.key);
  });

  test('an unreachable server exits 1 with "no response"', async () => {
    const run = await cli(['status', '--api-url', `http://127.0.0.1:${await findClosedPort()}`], {
      TRACKER_API_KEY: f.liveKey,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^status failed: .*ECONNREFUSED.* \(no response\)/);
    expectNoKey(run, f.liveKey);
  });
});
