import { describe, expect, test } from 'vitest';
import { previewRules } from '../../src/core/rewards/preview-rules.ts';
import { ADMIN_TOKEN, clickAndLead, createProgramFixture, useHarness, type Fixture } from '../helpers/harness.ts';

/**
 * Heavy reports beside tracking, both modes (docs/exports.md: Reports beside tracking): one rules preview,
 * export or rollup check of a program at a time (another meanwhile: 429 `rate_limited` with
 * `retry_after_seconds`), partner statements one at a time in turn, each within its time limit
 * (503 `service_unavailable` naming it). A report is held at a chosen point by a transaction that
 * locks the table it reads (`lock table … in access exclusive mode`): every read of it waits.
 */
const LIMIT_MS = 2_000;
const h = useHarness({ REPORT_TIMEOUT_MS: String(LIMIT_MS), EXPORT_TIMEOUT_MS: String(LIMIT_MS) });
let seq = 0;

/** Holds an exclusive lock on `table` until `release()`. */
async function lockTable(table: string): Promise<{ release(): Promise<void> }> {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => (locked = r));
  const done = h.ctx
    .deps()
    .em.fork()
    .transactional(async (em) => {
      await em.execute(`lock table ${table} in access exclusive mode`);
      locked();
      await held;
    });
  await Promise.race([isLocked, done]);
  return {
    async release() {
      release();
      await done;
    },
  };
}

const asAdmin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const preview = (f: Fixture) =>
  h.request(`/api/v1/admin/programs/${f.programId}/rules/preview`, {
    body: { reward_rules: { sale: { type: 'percent', bps: 1_500 } } },
    headers: asAdmin,
  });
const get = (path: string) => h.request(`/api/v1/admin${path}`, { headers: asAdmin });

async function programWithSales(n: number): Promise<Fixture> {
  const f = await createProgramFixture(h, { commission_rate_bps: 1_000 });
  await clickAndLead(h, f, `rl-buyer-${f.programId}`);
  for (let i = 0; i < n; i++) {
    const r = await h.request('/api/v1/track/sale', {
      body: { transaction_id: `rl-${++seq}`, amount_cents: 10_000 + i, customer_key: `rl-buyer-${f.programId}` },
      headers: { authorization: `Bearer ${f.liveKey}` },
    });
    expect(r.status).toBe(200);
  }
  return f;
}

type Answer = Awaited<ReturnType<typeof h.request>>;

/** Two calls at once while `table` is locked: the one refused answers first; then the other. */
async function twoAtOnce(table: string, call: () => Promise<Answer>): Promise<{ refused: Answer; served: Answer }> {
  const lock = await lockTable(table);
  const calls = [call(), call()];
  const refused = await Promise.race(calls);
  await lock.release();
  const both = await Promise.all(calls);
  return { refused, served: both.find((r) => r !== refused)! };
}

function expectBusy(r: Answer, label: RegExp): void {
  expect(r.status, JSON.stringify(r.body)).toBe(429);
  expect(r.body.error).toMatchObject({ code: 'rate_limited', retry_after_seconds: expect.any(Number) });
  expect(r.body.error.message).toMatch(label);
  expect(r.headers.get('retry-after')).toBe(String(r.body.error.retry_after_seconds));
}

function expectTimeLimit(r: Answer, label: RegExp): void {
  expect(r.status, JSON.stringify(r.body)).toBe(503);
  expect(r.body.error).toMatchObject({
    code: 'service_unavailable',
    retry_after_seconds: expect.any(Number),
    limit_seconds: LIMIT_MS / 1000,
  });
  expect(r.body.error.message).toMatch(label);
  expect(r.body.error.message).toMatch(/time limit/);
}

describe('rules preview', () => {
  test('a second preview of the program while one runs is 429 with retry_after_seconds; the first completes', async () => {
    const f = await programWithSales(3);
    const { refused, served } = await twoAtOnce('sale', () => preview(f));
    expectBusy(refused, /rules preview of this program is already running/);
    expect(served.status).toBe(200);
    expect(served.body.sales).toBe(3);
    // The slot is free again.
    expect((await preview(f)).status).toBe(200);
  });

  test('a preview past REPORT_TIMEOUT_MS answers 503 at the limit; its slot is freed once it has stopped', async () => {
    const f = await programWithSales(2);
    const lock = await lockTable('sale');
    const t0 = performance.now();
    const stopped = await preview(f);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(LIMIT_MS - 50);
    expectTimeLimit(stopped, /rules preview/);
    // Still inside its read: the stopped preview holds the slot until it notices.
    expectBusy(await preview(f), /already running/);
    await lock.release();
    let next = await preview(f);
    for (let i = 0; next.status === 429 && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 50));
      next = await preview(f);
    }
    expect(next.status).toBe(200);
    expect(next.body.sales).toBe(2);
  });

  test('paged replay: any page size gives the same answer, sales received in the same microsecond included', async () => {
    const f = await programWithSales(7);
    // Sales 1, 2, 3 µs apart and some at the very same time: the keyset must neither skip nor repeat.
    await h.ctx
      .deps()
      .em.fork()
      .execute(
        `update sale set received_at = received_at + (id % 3) * interval '1 microsecond' where program_id = ${f.programId}`,
      );
    const deps = h.ctx.deps();
    const window = { from: new Date(h.clock.now.getTime() - 86_400_000), to: new Date(h.clock.now.getTime() + 1) };
    const proposed = {
      programRules: {
        tiers: {
          metric: 'sales' as const,
          period: 'calendar_month' as const,
          steps: [{ from: 4, reward: { type: 'flat' as const, amounts: { USD: 700 } } }],
        },
      },
      groupRules: {},
    };
    const whole = await previewRules(deps, f.programId, proposed, window);
    expect(whole.sales).toBe(7);
    for (const pageSize of [1, 2, 3])
      expect(await previewRules(deps, f.programId, proposed, window, { pageSize })).toEqual(whole);
    const aborted = new AbortController();
    aborted.abort(new Error('stopped by its caller'));
    await expect(previewRules(deps, f.programId, proposed, window, { signal: aborted.signal })).rejects.toThrow(
      'stopped by its caller',
    );
  });
});

describe('exports', () => {
  test('a second export of the program while one is read is 429; the first downloads whole; then the slot is free', async () => {
    const f = await programWithSales(3);
    const { refused, served } = await twoAtOnce('sale', () => get(`/programs/${f.programId}/exports/sales.csv`));
    expectBusy(refused, /export of this program is already running/);
    expect(served.status).toBe(200);
    expect(String(served.body).trim().split('\n')).toHaveLength(4);
    expect((await get(`/programs/${f.programId}/exports/sales.csv`)).status).toBe(200);
  });

  test('an export that reaches EXPORT_TIMEOUT_MS before its first row answers 503', async () => {
    const f = await programWithSales(1);
    const lock = await lockTable('sale');
    const pending = get(`/programs/${f.programId}/exports/sales.csv`);
    await new Promise((r) => setTimeout(r, LIMIT_MS + 200));
    await lock.release();
    expectTimeLimit(await pending, /export/);
    expect((await get(`/programs/${f.programId}/exports/sales.csv`)).status).toBe(200);
  });
});

describe('rollup checks and statements', () => {
  test('a second rollup check of the program while one runs is 429', async () => {
    const f = await programWithSales(2);
    const { refused, served } = await twoAtOnce('sale', () => get(`/programs/${f.programId}/stats/check?days=60`));
    expectBusy(refused, /rollup check of this program is already running/);
    expect(served.status).toBe(200);
    expect(served.body).toEqual({ consistent: true, mismatches: [] });
  });

  test('statements of a program wait their turn (the dashboard asks for all at once) within the time limit', async () => {
    const f = await programWithSales(2);
    const path = `/programs/${f.programId}/partners/${f.partnerId}/statement`;
    const all = await Promise.all(Array.from({ length: 6 }, () => get(path)));
    expect(all.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);

    const lock = await lockTable('balance_entry');
    // The first stops at its limit inside its read; the second reaches its own limit in line.
    const [first, second] = await Promise.all([get(path), get(path)]);
    await lock.release();
    expectTimeLimit(first, /partner statement/);
    expectTimeLimit(second, /partner statement/);
  });
});
