/**
 * The production topology on this machine under a steady mixed load through HAProxy, with four
 * faults in turn: an `http` process SIGKILLed (and restarted), a worker SIGKILLed (and restarted),
 * PgBouncer restarted, the Redis primary SIGKILLed (the sentinels promote the replica). Then every
 * acknowledged event is applied exactly once, every balance equals its statement, nothing is left
 * pending; the figures go to test/topology/last-result.md.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { sleep } from '../faults/fault-env.ts';
import { ensureBinaries } from './binaries.ts';
import { createTopology, type Topology } from './topology.ts';
import { Load, newLedger } from './load.ts';
import { exactlyOnceViolations, failedJobReasons, statementMismatches, waitDrained } from './checks.ts';
import { faultFigures, writeResult, type FaultWindow } from './report.ts';

/** Operations a second of the steady load: modest, the machine is shared. */
const RATE = 30;

let versions: Record<string, string>;
let t: Topology;
beforeAll(async () => {
  // Every child process registers an exit handler that kills it if we die first.
  process.setMaxListeners(100);
  versions = ensureBinaries();
  t = await createTopology();
});
afterAll(async () => {
  await t?.close();
});

test('kills and failovers under load: every acknowledged event applied once, balances equal statements, nothing pending', async () => {
  const ledger = newLedger();
  const load = new Load(t.haproxy.url, t.fixture, t.adminToken, ledger);

  // Throughput: API sales (answered once their job ran) as fast as 6 clients get them, after a
  // warm-up (the first seconds of a process run slower): two workers, one, two again.
  await load.saleThroughput(4_000, 6, 'warm');
  const twoBefore = await load.saleThroughput(8_000, 6, 'x2a');
  await t.stopWorker(1);
  const oneWorker = await load.saleThroughput(8_000, 6, 'x1');
  await t.startWorker(1);
  const twoAfter = await load.saleThroughput(8_000, 6, 'x2b');

  let stop = false;
  const steady = load.steady(RATE, () => stop);
  const windows: FaultWindow[] = [];
  const fault = async (name: string, inject: () => Promise<void>) => {
    await sleep(5_000);
    const from = Date.now();
    await inject();
    await t.haproxy.waitUntilUp(['http1', 'http2']);
    const recovered = Date.now();
    windows.push({ name, from, recovered, to: recovered + 5_000 });
  };
  await fault('http process SIGKILLed, restarted after 2 s', async () => {
    await t.killHttp(0);
    await sleep(2_000);
    await t.startHttp(0);
  });
  await fault('worker SIGKILLed, restarted after 2 s', async () => {
    await t.killWorker(0);
    await sleep(2_000);
    await t.startWorker(0);
  });
  await fault('PgBouncer SIGKILLed, restarted after 1 s', async () => {
    await t.bouncer.stop();
    await sleep(1_000);
    await t.bouncer.start();
  });
  let promoted = 0;
  await fault('Redis primary SIGKILLed (Sentinel failover)', async () => {
    promoted = (await t.redis.killPrimary()).newPrimaryPort;
  });
  await sleep(8_000);
  stop = true;
  await steady;

  // Stalled jobs of the killed worker come back once their lock expires (BullMQ: 30 s).
  const pending = await waitDrained(t, 150_000);
  const violations = await exactlyOnceViolations(t, ledger);
  const mismatches = await statementMismatches(t);
  const figures = windows.map((w) => faultFigures(ledger.samples, w));
  const count = (m: Map<string, { acked: boolean }>) =>
    `${[...m.values()].filter((v) => v.acked).length} of ${m.size} acknowledged`;
  const byKind = (k: string) => ledger.samples.filter((s) => s.kind === k);
  const text = writeResult({
    date: new Date().toISOString(),
    versions,
    loadRate: RATE,
    throughput: { twoWorkers: [twoBefore, twoAfter], oneWorker },
    faults: figures,
    totals: {
      'API sales (all phases)': count(ledger.apiSales),
      'API refunds': count(ledger.apiRefunds),
      'Stripe checkouts': count(ledger.checkouts),
      'Stripe refunds': count(ledger.stripeRefunds),
      Clicks: `${byKind('click').filter((s) => s.status === 200).length} of ${byKind('click').length} answered 200`,
      'Dashboard reads / CSV exports': `${byKind('read').length} / ${byKind('export').length}`,
    },
    checks: {
      'Pending after the run': JSON.stringify(pending),
      'Failed jobs by queue and reason': JSON.stringify(await failedJobReasons(t)),
      'Exactly-once and ledger violations': JSON.stringify(violations),
      'Balances differing from statements': String(mismatches.length),
    },
  });
  console.log(text);

  expect(promoted).toBe(t.redis.replicaPort);
  const { failed_jobs: _failed, ...stillPending } = pending;
  expect(
    Object.values(stillPending).every((n) => n === 0),
    JSON.stringify(pending),
  ).toBe(true);
  expect(violations).toEqual({});
  expect(mismatches).toEqual([]);
  // The load really ran through every fault, and acknowledgements came back after each.
  for (const f of figures) expect(f.requests, f.name).toBeGreaterThan(50);
  for (const m of [ledger.apiSales, ledger.checkouts, ledger.apiRefunds, ledger.stripeRefunds]) {
    const acked = [...m.values()].filter((v) => v.acked).length;
    expect(acked).toBeGreaterThan(0.95 * m.size);
  }
  expect(Math.min(twoBefore, twoAfter)).toBeGreaterThan(0);
  expect(oneWorker).toBeGreaterThan(0);
});
