/**
 * DATABASE_READ_URL: the service's dashboard lists and series, exports, statements and the status
 * route read from a streaming replica (a private primary and replica, test/helpers/pg-replica.ts).
 * What the replica serves is told apart by a row changed directly on the primary while the
 * replica's WAL replay is paused: the replica does not have it, the primary does. Production mode
 * only: embedded mode (PGlite) has no replication.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import pg from 'pg';
import {
  ADMIN_TOKEN,
  bearer,
  clickAndLead,
  createHarness,
  createProgramFixture,
  type Fixture,
  type Harness,
} from '../helpers/harness.ts';
import { createFreezableProxy } from '../helpers/freezable-proxy.ts';
import { createPgReplicaPair, type PgReplicaPair } from '../helpers/pg-replica.ts';

const production = Boolean(process.env.REDIS_URL && process.env.DATABASE_URL);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.runIf(production)('read replica (production mode only: PGlite has no replication)', () => {
  let pair: PgReplicaPair;
  let h: Harness;
  let f: Fixture;
  let primary: pg.Pool;
  const created: string[] = [];
  const service = (env: Record<string, string>) =>
    createHarness(env, {
      server: pair.primaryUrl(),
      readUrl: (url) => {
        const name = new URL(url).pathname.slice(1);
        created.push(name);
        return pair.replicaUrl(name);
      },
    });

  beforeAll(async () => {
    pair = await createPgReplicaPair();
    h = await service({ DATABASE_READ_MAX_LAG_MS: '60000', LOG_LEVEL: 'info' });
    primary = new pg.Pool({ connectionString: pair.primaryUrl(created[0]), max: 2 });
    f = await createProgramFixture(h, { commission_rate_bps: 1000 });
  });
  afterAll(async () => {
    await pair?.resumeReplay().catch(() => {});
    await primary?.end();
    await h?.close();
    await pair?.close();
  });

  const adminGet = (path: string) => h.request(`/api/v1/admin${path}`, { headers: bearer(ADMIN_TOKEN) });
  const partnerNames = async (x: Harness = h, programId = f.programId) => {
    const r = await x.request(`/api/v1/admin/programs/${programId}/partners`, { headers: bearer(ADMIN_TOKEN) });
    expect(r.status).toBe(200);
    return (r.body.partners as Array<{ id: number; name: string }>).map((p) => p.name);
  };
  /** The fixture partner's name as the partner list shows it. */
  const listedName = async () => {
    const r = await adminGet(`/programs/${f.programId}/partners`);
    return (r.body.partners as Array<{ id: number; name: string }>).find((p) => p.id === f.partnerId)?.name;
  };
  /** Reads (each may run the router's check) until the router reports `status` with no write pinned. */
  const until = async (x: Harness, status: string, programId = f.programId) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      await partnerNames(x, programId);
      const s = x.ctx.reads.replica!.state();
      if (s.status === status && s.pinned === 0) return;
      if (Date.now() > deadline) throw new Error(`the replica is ${JSON.stringify(s)}, not ${status}`);
      await sleep(200);
    }
  };
  const rename = (name: string) => primary.query('update partner set name = $1 where id = $2', [name, f.partnerId]);

  test('reads are served by the replica: a change on the primary shows only once the replica replays it', async () => {
    await pair.waitForReplay();
    await until(h, 'serving');
    await pair.pauseReplay();
    await rename('Renamed on the primary');
    // The replica has not applied it: the list still shows the old name.
    expect(await partnerNames()).toEqual(['Partner One']);
    const csv = await adminGet(`/programs/${f.programId}/exports/commissions`);
    expect(csv.status).toBe(200);
    await pair.resumeReplay();
    await pair.waitForReplay();
    await sleep(1_100); // the router's next check
    expect(await partnerNames()).toEqual(['Renamed on the primary']);
  });

  test('read-your-writes: a partner added through the admin API is listed at once while replay is paused', async () => {
    await until(h, 'serving');
    await pair.pauseReplay();
    try {
      const { partner } = await h.admin('POST', `/programs/${f.programId}/partners`, {
        code: `ryw${Date.now()}`,
        name: 'Written just now',
      });
      expect(h.ctx.reads.replica!.state().pinned).toBeGreaterThan(0);
      expect(await partnerNames()).toContain('Written just now');
      const status = await h.request('/api/v1/cli/status', { headers: bearer(f.liveKey) });
      expect(status.status).toBe(200);
      // Another program, written to by no one here, is still read from the (paused) replica.
      const other = await createProgramFixture(h);
      await pair.resumeReplay();
      await pair.waitForReplay();
      await until(h, 'serving');
      await pair.pauseReplay();
      await primary.query('update partner set name = $1 where id = $2', ['Only on the primary', other.partnerId]);
      expect(await partnerNames(h, other.programId)).toEqual(['Partner One']);
      expect(await partnerNames()).toContain(partner.name);
    } finally {
      await pair.resumeReplay();
    }
  });

  test("a tracked sale pins the status route of its API key, not the program's dashboard", async () => {
    await clickAndLead(h, f, 'cust-ryw');
    await pair.waitForReplay();
    await until(h, 'serving');
    const sales = async () => (await adminGet(`/programs/${f.programId}/sales`)).body.sales.length;
    const before = await sales();
    await pair.pauseReplay();
    try {
      const sale = await h.request('/api/v1/track/sale', {
        body: { transaction_id: 'tx-ryw-1', amount_cents: 5_000, customer_key: 'cust-ryw' },
        headers: bearer(f.liveKey),
      });
      expect(sale.status).toBe(200);
      const status = await h.request('/api/v1/cli/status', { headers: bearer(f.liveKey) });
      expect(status.body.activity.sales.count).toBe(before + 1);
      // The dashboard's list is still read from the paused replica.
      expect(await sales()).toBe(before);
    } finally {
      await pair.resumeReplay();
    }
  });

  test('the replica stopped: every replica-served route answers from the primary, and the replica serves again once back', async () => {
    await pair.waitForReplay();
    await until(h, 'serving');
    await pair.stopReplica();
    await rename('Renamed while the replica is down');
    const routes = [
      `/programs/${f.programId}/partners`,
      `/programs/${f.programId}/stats`,
      `/programs/${f.programId}/stats/commissions`,
      `/programs/${f.programId}/exports/sales`,
      `/programs/${f.programId}/partners/${f.partnerId}/statement`,
    ];
    for (const path of routes) expect((await adminGet(path)).status, path).toBe(200);
    expect((await h.request('/api/v1/cli/status', { headers: bearer(f.liveKey) })).status).toBe(200);
    expect(await listedName()).toBe('Renamed while the replica is down');
    expect(h.ctx.reads.replica!.state().status).toBe('down');
    // Said once, however many reads went to the primary meanwhile.
    const down = h.logs.filter((l) => String(l.msg).startsWith('read replica: not answering'));
    expect(down).toHaveLength(1);

    await pair.startReplica();
    await pair.waitForReplay();
    await until(h, 'serving');
    await pair.pauseReplay();
    try {
      await rename('Renamed after the replica came back');
      expect(await listedName()).toBe('Renamed while the replica is down');
    } finally {
      await pair.resumeReplay();
    }
  });

  test('a replica lagging over DATABASE_READ_MAX_LAG_MS: reads go to the primary until it catches up', async () => {
    const lagging = await service({ DATABASE_READ_MAX_LAG_MS: '1000', LOG_LEVEL: 'info' });
    try {
      const g = await createProgramFixture(lagging);
      const db = new pg.Pool({ connectionString: pair.primaryUrl(created.at(-1)), max: 1 });
      try {
        await pair.waitForReplay();
        await until(lagging, 'serving', g.programId);
        await pair.pauseReplay();
        await db.query('update partner set name = $1 where id = $2', ['Lagging behind', g.partnerId]);
        await until(lagging, 'lagging', g.programId);
        expect(await partnerNames(lagging, g.programId)).toEqual(['Lagging behind']);
        expect(lagging.logs.some((l) => String(l.msg).startsWith('read replica: lagging'))).toBe(true);
        await pair.resumeReplay();
        await pair.waitForReplay();
        await until(lagging, 'serving', g.programId);
        expect(await partnerNames(lagging, g.programId)).toEqual(['Lagging behind']);
      } finally {
        await db.end();
      }
    } finally {
      await pair.resumeReplay();
      await lagging.close();
    }
  });

  test('a hung replica: reads answer from the primary within the request bound', async () => {
    const proxy = await createFreezableProxy(pair.replicaUrl());
    const hung = await createHarness(
      { DB_QUERY_TIMEOUT_MS: '1000', DATABASE_READ_MAX_LAG_MS: '60000' },
      {
        server: pair.primaryUrl(),
        readUrl: (url) => {
          const u = new URL(pair.replicaUrl(new URL(url).pathname.slice(1)));
          u.port = new URL(proxy.url).port;
          return u.toString();
        },
      },
    );
    try {
      const g = await createProgramFixture(hung);
      await pair.waitForReplay();
      await until(hung, 'serving', g.programId);
      proxy.freeze();
      for (let i = 0; i < 5; i++) {
        const t0 = performance.now();
        expect(await partnerNames(hung, g.programId)).toEqual(['Partner One']);
        expect(performance.now() - t0).toBeLessThan(3_000);
        await sleep(300);
      }
      expect(hung.ctx.reads.replica!.state().status).toBe('down');
      proxy.thaw();
      await until(hung, 'serving', g.programId);
    } finally {
      proxy.thaw();
      await hung.close();
      await proxy.close();
    }
  });
});
