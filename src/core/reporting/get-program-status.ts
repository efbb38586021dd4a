import type { CoreDeps } from '../deps.ts';
import { Program } from '../entities/program.ts';
import { ProviderConnection } from '../entities/provider-connection.ts';
import { ignoredReasonCode } from '../webhooks/ignored-reasons.ts';
import { dateFromMs, epochMs, typedSql } from '../db/sql.ts';
import { sql } from 'kysely';
import { ALL_PARTNERS } from '../entities/daily-rollup.ts';
import { activityTotals } from './get-activity-series.ts';

/** How many rows of one kind, and when the latest was written. */
export type Activity = { count: number; lastAt: Date | null };

/**
 * Program health (`GET /api/v1/cli/status`): recent activity, ignored provider events, connections.
 * A test key sees the program's test traffic as its activity (testActivity), a live key the live rows.
 */
export type ProgramStatus = {
  program: { id: number; name: string; domain: string | null };
  keyMode: 'live' | 'test';
  activity: { clicks: Activity; leads: Activity; sales: Activity; refunds: Activity };
  /** Provider events that recorded nothing, with their count per reason code. */
  ignoredProviderEvents: { count: number; lastAt: Date | null; byReason: Record<string, number> };
  connectedProviders: Array<{ provider: string; connectedAt: Date }>;
  serverTime: Date;
};

export async function getProgramStatus(
  deps: CoreDeps,
  programId: number,
  keyMode: 'live' | 'test',
): Promise<ProgramStatus> {
  const status = await liveStatus(deps, programId, keyMode);
  return keyMode === 'test' ? { ...status, activity: await testActivity(deps, programId) } : status;
}

/**
 * The activity a test key sees: test sales (a test key's sales, `livemode: false`, a provider's
 * test events) and test leads, from `test_event`. Clicks carry no key and a test refund stores
 * nothing, so neither has test rows: both count 0.
 */
async function testActivity(deps: CoreDeps, programId: number): Promise<ProgramStatus['activity']> {
  const rows = await typedSql(deps.em)
    .selectFrom('test_event')
    .select((eb) => [
      sql<string>`case when payload->>'origin' <> 'test' then 'sales' when payload->'additionalData'->'lead' is not null then 'leads' else 'other' end`.as(
        'measure',
      ),
      eb.fn.countAll<string>().as('count'),
      epochMs(eb.fn.max('created_at')).as('last_ms'),
    ])
    .where('program_id', '=', programId)
    .groupBy(sql`1`)
    .execute();
  const of = (measure: string): Activity => {
    const row = rows.find((r) => r.measure === measure);
    return { count: Number(row?.count ?? 0), lastAt: dateFromMs(row?.last_ms ?? null) };
  };
  const none: Activity = { count: 0, lastAt: null };
  return { clicks: none, leads: of('leads'), sales: of('sales'), refunds: none };
}

async function liveStatus(deps: CoreDeps, programId: number, keyMode: 'live' | 'test'): Promise<ProgramStatus> {
  const em = deps.em;
  const db = typedSql(em);
  // The latest row of each kind, by its (program, time) index.
  const last = async (table: 'click' | 'customer' | 'sale' | 'refund', column: 'created_at' | 'received_at') => {
    const row = await db
      .selectFrom(table)
      .select((eb) => epochMs(eb.fn.max(sql.ref<Date>(column))).as('last_ms'))
      .where('program_id', '=', programId)
      .executeTakeFirst();
    return dateFromMs(row?.last_ms ?? null);
  };
  // Independent reads, each by an index, side by side.
  const programRead = em.findOneOrFail(Program, { id: programId });
  const [program, totals, lastAt, refunds, ignoredRows, connections] = await Promise.all([
    programRead,
    activitySince(deps, programId, programRead),
    Promise.all([
      last('click', 'created_at'),
      last('customer', 'created_at'),
      last('sale', 'received_at'),
      last('refund', 'created_at'),
    ]),
    db
      .selectFrom('refund')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('program_id', '=', programId)
      .executeTakeFirst(),
    // Provider events that recorded nothing, per reason (docs/providers.md lists them), from the
    // partial index of ignored events alone.
    db
      .selectFrom('webhook_event')
      .select((eb) => [
        'error as reason',
        eb.fn.countAll<string>().as('count'),
        epochMs(eb.fn.max('received_at')).as('last_ms'),
      ])
      .where('program_id', '=', programId)
      .where('status', '=', 'ignored')
      .groupBy('error')
      .execute(),
    em.find(ProviderConnection, { program: programId }, { fields: ['provider', 'updatedAt'] }),
  ]);
  const byReason: Record<string, number> = {};
  let lastIgnored: number | null = null;
  for (const r of ignoredRows) {
    const code = ignoredReasonCode(r.reason ?? 'unknown');
    byReason[code] = (byReason[code] ?? 0) + Number(r.count);
    const last = dateFromMs(r.last_ms);
    if (last) lastIgnored = Math.max(lastIgnored ?? 0, last.getTime());
  }
  return {
    program: { id: program.id, name: program.name, domain: program.domain ?? null },
    keyMode,
    activity: {
      clicks: { count: totals.clicks, lastAt: lastAt[0] },
      leads: { count: totals.leads, lastAt: lastAt[1] },
      sales: { count: totals.sales, lastAt: lastAt[2] },
      refunds: { count: Number(refunds?.count ?? 0), lastAt: lastAt[3] },
    },
    ignoredProviderEvents: {
      count: Object.values(byReason).reduce((a, b) => a + b, 0),
      lastAt: lastIgnored === null ? null : new Date(lastIgnored),
      byReason,
    },
    connectedProviders: connections.map((c) => ({ provider: c.provider, connectedAt: c.updatedAt })),
    serverTime: deps.clock(),
  };
}

/**
 * Counts from the daily rollups and the raw rows of what is not rolled (get-activity-series.ts),
 * since the program's first rolled day (a database seeded with history) or its creation.
 */
async function activitySince(deps: CoreDeps, programId: number, programRead: Promise<{ createdAt: Date }>) {
  const [program, first] = await Promise.all([
    programRead,
    typedSql(deps.em)
      .selectFrom('daily_rollup')
      .select(sql<string | null>`min(day)::text`.as('day'))
      .where('program_id', '=', programId)
      .where('partner_id', '=', ALL_PARTNERS)
      .executeTakeFirst(),
  ]);
  const since = new Date(Math.min(program.createdAt.getTime(), first?.day ? Date.parse(first.day) : Infinity));
  return activityTotals(deps, programId, since);
}
