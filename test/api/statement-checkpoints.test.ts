/**
 * Signed statement checkpoints end to end: the deployment's key made at startup and published,
 * a checkpoint at every payout and on schedule, the export carrying the latest, rotation keeping
 * old keys, and a statement downloaded from the service checked by the client's CLI.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { expect, test } from 'vitest';
import { runCli } from '../../tracker/src/cli.ts';
import { StatementCheckpoint } from '../../src/core/entities/statement-checkpoint.ts';
import { StatementKey } from '../../src/core/entities/statement-key.ts';
import { sweepStatementCheckpoints } from '../../src/workers/sweep-statement-checkpoints.ts';
import {
  ADMIN_TOKEN,
  bearer,
  clickAndLead,
  createProgramFixture,
  useHarness,
  type Fixture,
} from '../helpers/harness.ts';

const HOUR = 3_600_000;
const h = useHarness(
  {
    DATA_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    STATEMENT_CHECKPOINT_INTERVAL_MS: String(HOUR),
    // The test runs the checkpoint sweep itself.
    SWEEP_INTERVAL_MS: String(24 * HOUR),
  },
  // Two tests edit balance_entry rows on purpose (an edited ledger must fail the statement check).
  { verifyLedgerOnClose: false },
);
const dir = mkdtempSync(join(tmpdir(), 'statement-'));

type WellKnown = { keys: Array<{ key_id: string; algorithm: string; public_key: string; retired_at: string | null }> };

async function wellKnown(): Promise<WellKnown> {
  const r = await h.request('/.well-known/statement-keys.json');
  expect(r.status).toBe(200);
  return r.body as WellKnown;
}

async function statementCsv(f: Fixture): Promise<string> {
  const r = await h.request(`/api/v1/admin/programs/${f.programId}/exports/statement?partner_id=${f.partnerId}`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(r.status).toBe(200);
  return r.body as string;
}

async function verify(csv: string, ...keyArgs: string[]) {
  const file = join(dir, `statement-${randomBytes(4).toString('hex')}.csv`);
  writeFileSync(file, csv);
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(['verify-statement', file, ...keyArgs.flatMap((k) => ['--key', k])], {
    env: {},
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** A credited commission of `cents` × 10% for the fixture's partner; returns its id. */
async function creditedCommission(f: Fixture, tx: string, cents: number): Promise<number> {
  const r = await h.request('/api/v1/track/sale', {
    body: { transaction_id: tx, amount_cents: cents, customer_key: 'st' },
    headers: bearer(f.liveKey),
  });
  expect(r.status).toBe(200);
  await h.admin('POST', `/programs/${f.programId}/commissions/${r.body.commission_id}/approve`);
  return r.body.commission_id as number;
}

const checkpoints = (partnerId: number) =>
  h.ctx.db.em.fork().find(StatementCheckpoint, { partner: partnerId }, { orderBy: { id: 'asc' } });
const inlineKey = (k: WellKnown['keys'][number]) => `${k.key_id}:${k.public_key}`;

test('one Ed25519 key from startup, published at the well-known URL; its private half stored sealed', async () => {
  const { keys } = await wellKnown();
  expect(keys).toHaveLength(1);
  const [key] = keys;
  const raw = Buffer.from(key!.public_key, 'base64url');
  expect(raw).toHaveLength(32);
  expect(key).toMatchObject({ algorithm: 'Ed25519', retired_at: null });
  expect(key!.key_id).toBe(createHash('sha256').update(raw).digest('hex').slice(0, 16));
  const [row] = await h.ctx.db.em.fork().find(StatementKey, {});
  expect(row!.privateKeySealed).toMatch(/^v1:k1:/);
  expect(JSON.stringify(await wellKnown())).not.toContain(row!.privateKeySealed);
});

test('a payout signs the statement head; the downloaded statement verifies with the CLI; an edited ledger does not', async () => {
  const f = await createProgramFixture(h, { commission_rate_bps: 1000 });
  await clickAndLead(h, f, 'st');
  const commission = await creditedCommission(f, 'st-1', 10_000);
  await creditedCommission(f, 'st, "2"', 5_000);
  const paid = await h.admin('POST', `/programs/${f.programId}/commissions/${commission}/pay`);
  const [checkpoint] = await checkpoints(f.partnerId);
  expect(checkpoint).toMatchObject({ reason: 'payout', lines: 3, balances: 'USD:500' });
  const { keys } = await wellKnown();
  expect(checkpoint!.keyId).toBe(keys[0]!.key_id);

  const csv = await statementCsv(f);
  const [header, ...rows] = parse(csv) as string[][];
  const cell = (r: string[], name: string) => r[header!.indexOf(name)];
  expect(rows.map((r) => cell(r, 'kind'))).toEqual(['commission_credit', 'commission_credit', 'payout']);
  expect(cell(rows[2]!, 'payout_id')).toBe(String(paid.payout.id));
  expect(cell(rows[2]!, 'checkpoint_key_id')).toBe(checkpoint!.keyId);
  expect(cell(rows[2]!, 'checkpoint_signature')).toMatch(/^[0-9a-f]{128}$/);
  expect(rows.slice(0, 2).map((r) => cell(r, 'checkpoint_signature'))).toEqual(['', '']);

  const base = await h.listen();
  const ok = await verify(csv, `${base}/.well-known/statement-keys.json`);
  expect(ok).toMatchObject({ code: 0, err: '' });
  expect(ok.out).toContain(`statement of partner ${f.partnerId} in program ${f.programId}, 3 lines`);

  // A merchant who edits the database gets a consistent chain from the service, but not the signature.
  await h.ctx.db.em
    .fork()
    .getConnection()
    .execute(`update balance_entry set delta_cents = delta_cents + 100 where commission_id = ${commission}`);
  const edited = await verify(await statementCsv(f), inlineKey(keys[0]!));
  expect(edited.code).toBe(1);
  expect(edited.err).toMatch(/^INVALID: .* line 4 \(checkpoint_balances\)/);
});

test('on schedule: the sweep signs the statements that moved since its last run, once per interval', async () => {
  const f = await createProgramFixture(h, { commission_rate_bps: 1000 });
  await clickAndLead(h, f, 'st');
  await creditedCommission(f, 'sch-1', 20_000);
  expect(await checkpoints(f.partnerId)).toHaveLength(0);
  const start = h.clock.now;
  try {
    expect(await sweepStatementCheckpoints(h.ctx)).toBeGreaterThanOrEqual(1);
    expect(await checkpoints(f.partnerId)).toMatchObject([{ reason: 'schedule', lines: 1, balances: 'USD:2000' }]);
    await creditedCommission(f, 'sch-2', 10_000);
    expect(await sweepStatementCheckpoints(h.ctx)).toBe(0); // not due yet
    h.clock.now = new Date(start.getTime() + HOUR + 1000);
    expect(await sweepStatementCheckpoints(h.ctx)).toBeGreaterThanOrEqual(1);
    expect((await checkpoints(f.partnerId)).map((c) => c.lines)).toEqual([1, 2]);
    h.clock.now = new Date(start.getTime() + 2 * HOUR + 2000);
    await sweepStatementCheckpoints(h.ctx); // nothing moved for this partner: no new checkpoint
    expect(await checkpoints(f.partnerId)).toHaveLength(2);
  } finally {
    h.clock.now = start;
  }
  const { keys } = await wellKnown();
  expect(await verify(await statementCsv(f), inlineKey(keys[0]!))).toMatchObject({ code: 0 });
});

test('rotation: a new key signs, the old one stays published and still verifies what it signed', async () => {
  const f = await createProgramFixture(h, { commission_rate_bps: 1000 });
  await clickAndLead(h, f, 'st');
  const first = await creditedCommission(f, 'rot-1', 10_000);
  await h.admin('POST', `/programs/${f.programId}/commissions/${first}/pay`);
  const before = await statementCsv(f);
  const [old] = (await wellKnown()).keys;

  const rotated = await h.admin('POST', '/statement-keys/rotate', {});
  expect(rotated.retired).toEqual([old!.key_id]);
  const { keys } = await wellKnown();
  expect(keys.map((k) => k.key_id)).toEqual([rotated.key_id, old!.key_id]);
  expect(keys[1]!.retired_at).not.toBeNull();
  expect(keys[0]!.retired_at).toBeNull();

  const keyFile = join(dir, 'keys.json');
  writeFileSync(keyFile, JSON.stringify({ keys }));
  expect(await verify(before, keyFile)).toMatchObject({ code: 0 });

  const second = await creditedCommission(f, 'rot-2', 10_000);
  await h.admin('POST', `/programs/${f.programId}/commissions/${second}/pay`);
  expect((await checkpoints(f.partnerId)).map((c) => c.keyId)).toEqual([old!.key_id, rotated.key_id]);
  const after = await statementCsv(f);
  expect(await verify(after, keyFile)).toMatchObject({ code: 0 });
  // The old key alone no longer verifies the latest checkpoint.
  expect((await verify(after, inlineKey(old!))).err).toMatch(/checkpoint_key_id/);
});

test('a ledger changed under its last checkpoint is not signed again; the payout itself goes through', async () => {
  const f = await createProgramFixture(h, { commission_rate_bps: 1000 });
  await clickAndLead(h, f, 'st');
  const first = await creditedCommission(f, 'ref-1', 10_000);
  await h.admin('POST', `/programs/${f.programId}/commissions/${first}/pay`);
  expect(await checkpoints(f.partnerId)).toHaveLength(1);
  // Someone removes the signed credit line from the database.
  await h.ctx.db.em
    .fork()
    .getConnection()
    .execute(`delete from balance_entry where commission_id = ${first} and kind = 'commission_credit'`);
  const second = await creditedCommission(f, 'ref-2', 10_000);
  const paid = await h.admin('POST', `/programs/${f.programId}/commissions/${second}/pay`);
  expect(paid.payout.status).toBe('paid');
  expect(await checkpoints(f.partnerId)).toHaveLength(1);
  // The export still carries the old checkpoint, which no longer matches the lines before it.
  const { keys } = await wellKnown();
  expect((await verify(await statementCsv(f), inlineKey(keys[0]!))).code).toBe(1);
});
