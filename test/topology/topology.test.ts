/**
 * The production topology on this machine under a steady mixed load through HAProxy, with five
 * faults in turn: an `http` process SIGKILLed (and restarted), a worker SIGKILLed (and restarted),
 * PgBouncer restarted, the PostgreSQL read replica stopped (and restarted), the Redis primary
 * SIGKILLed (the sentinels promote the replica). While the PostgreSQL replica is down, dashboard
 * reads and exports answer from the primary; once it is back, both `http` processes read from it
 * again (their `/metrics` gauge, the replica's own scan counts). Then every
 * acknowledged event is applied exactly once, every balance equals its statement, nothing is left
 * pending; the figures go to test/topology/last-result.md.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { sleep } from '../faults/fault-env.ts';
import { ensureBinaries } from './binaries.ts';
import { createTopology, type Topology } from './topology.ts';
import { Load, newLedger } from './load.ts';
import { exactlyOnceViolations, statementMismatches, workPlace } from './checks.ts';
import { failedJobReasons, waitDrained } from '../helpers/pending-work.ts';
import { faultFigures, writeResult, type FaultWindow } from './report.ts';
import { replicaFault } from './replica.ts';

/** Operations a second of the steady load: modest, the machine is shared. */
const RATE = 30;
/** How long the PostgreSQL read replica stays stopped. */
const REPLICA_DOWN_MS = 5_000;

let versions: Record<string, string>;
let t: Topology;
beforeAll(async () => {
  // Every child process registers an exit handler that kills it if we die first.
  process.setMaxListeners(100);
  versions = ensureBinaries();
  t = await createTopology();
  // Failure reasons name ports (`connect ECONNREFUSED 127.0.0.1:…`): which part each one was.
  versions.ports = `PgBouncer ${t.bouncer.port}, PostgreSQL primary ${t.pg.primaryPort} and replica ${t.pg.replicaPort}, Redis primary ${t.redis.primaryPort} and replica ${t.redis.replicaPort}`;
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
    await t.haproxy.waitUntilUp(['http1', 'http2']).catch(async (err: Error) => {
      // Say why: each process's own /readyz answer and its last log lines.
      const why = await Promise.all(
        t.http.map(async (p, i) => {
          const ready = await fetch(`${p?.url}/readyz`, { signal: AbortSignal.timeout(3_000) })
            .then(async (r) => `${r.status} ${await r.text()}`)
            .catch((e: Error) => e.message);
          return `http${i + 1} /readyz: ${ready}\n${p?.output().split('\n').slice(-15).join('\n')}`;
        }),
      );
      throw new Error(`${name}: ${err.message}\n${why.join('\n')}`);
    });
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
  const replica = replicaFault(t, REPLICA_DOWN_MS);
  await replica.baseline();
  await fault(`PostgreSQL read replica stopped, restarted after ${REPLICA_DOWN_MS / 1000} s`, () => replica.inject());
  await sleep(10_000);
  await replica.settle();
  let promoted = 0;
  await fault('Redis primary SIGKILLed (Sentinel failover)', async () => {
    promoted = (await t.redis.killPrimary()).newPrimaryPort;
  });
  await sleep(8_000);
  stop = true;
  await steady;

  // Stalled jobs of the killed worker come back once their lock expires (BullMQ: 30 s).
  const pending = await waitDrained(workPlace(t), 150_000);
  // Statements are read from the replica: compared once it has replayed everything.
  await t.pg.waitForReplay(60_000);
  await sleep(1_500);
  const violations = await exactlyOnceViolations(t, ledger);
  const mismatches = await statementMismatches(t);
  const figures = windows.map((w) => faultFigures(ledger.samples, w));
  const count = (m: Map<string, { acked: boolean }>) =>
    `${[...m.values()].filter((v) => v.acked).length} of ${m.size} acknowledged`;
  const byKind = (k: string) => ledger.samples.filter((s) => s.kind === k);
  const rf = replica.figures;
  const readsWhileDown = ledger.samples.filter(
    (s) => (s.kind === 'read' || s.kind === 'export') && s.start >= rf.stoppedAt && s.start < rf.startedAt,
  );
  const answers = new Map<number, number>();
  for (const s of readsWhileDown) answers.set(s.status, (answers.get(s.status) ?? 0) + 1);
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
    replica: {
      'Dashboard reads and exports started while it was down': `${readsWhileDown.length}, answered ${
        [...answers].map(([k, v]) => `${k || 'no answer'} × ${v}`).join(', ') || '-'
      }`,
      'Status on each http process while down (its /metrics, every 0.5 s)': rf.statusWhileDown
        .map((s, i) => `http${i + 1}: ${s}`)
        .join('; '),
      'Every http process serving from the replica again': `${rf.servingAgainSeconds.toFixed(1)} s after the restart`,
      'Scans of the service tables on the replica': `${rf.scansPerSecondBefore.toFixed(1)}/s before the stop, ${rf.scansPerSecondAfter.toFixed(1)}/s in the 10 s after`,
    },
    checks: {
      'Pending after the run': JSON.stringify(pending),
      'Failed jobs by queue and reason': JSON.stringify(await failedJobReasons(workPlace(t))),
      'Exactly-once and ledger violations': JSON.stringify(violations),
      'Balances differing from statements': String(mismatches.length),
    },
  });
  console.log(text);

  expect(promoted).toBe(t.redis.replicaPort);
  // The replica fault: reads kept answering from the primary, and went back to the replica.
  expect(readsWhileDown.length).toBeGreaterThan(10);
  expect(readsWhileDown.filter((s) => s.status === 0 || s.status >= 500)).toEqual([]);
  for (const s of rf.statusWhileDown) expect(s).toContain('down');
  expect(rf.statusAfter).toEqual(t.http.map(() => 'serving'));
  expect(rf.scansPerSecondBefore).toBeGreaterThan(0);
  expect(rf.scansPerSecondAfter).toBeGreaterThan(0);
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
