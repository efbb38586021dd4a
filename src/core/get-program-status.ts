import type { CoreDeps } from './deps.ts';
import { Program } from './entities/program.ts';
import { ProviderConnection } from './entities/provider-connection.ts';
import { ignoredReasonCode } from './ignored-reasons.ts';
import { dateFromMs, epochMs, typedSql, type DB } from './sql.ts';
import type { SelectQueryBuilder } from 'kysely';

/** How many rows of one kind, and when the latest was written. */
export type Activity = { count: number; lastAt: Date | null };

/** Program health (`GET /api/v1/cli/status`): recent activity, ignored provider events, connections. */
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
  const em = deps.em;
  const program = await em.findOneOrFail(Program, { id: programId });
  const db = typedSql(em);
  const activity = async (
    q: SelectQueryBuilder<DB, 'click' | 'customer' | 'sale' | 'refund', object>,
    column: 'clicked_at' | 'created_at' | 'received_at',
  ): Promise<Activity> => {
    const row = await q
      .select((eb) => [eb.fn.countAll<string>().as('count'), epochMs(eb.fn.max(eb.ref(column))).as('last_ms')])
      .where('program_id', '=', programId)
      .executeTakeFirst();
    return { count: Number(row?.count ?? 0), lastAt: dateFromMs(row?.last_ms ?? null) };
  };
  // Provider events that recorded nothing, per reason (docs/providers.md lists them).
  const ignoredRows = await db
    .selectFrom('webhook_event')
    .select((eb) => [
      'error as reason',
      eb.fn.countAll<string>().as('count'),
      epochMs(eb.fn.max('received_at')).as('last_ms'),
    ])
    .where('program_id', '=', programId)
    .where('status', '=', 'ignored')
    .groupBy('error')
    .execute();
  const byReason: Record<string, number> = {};
  let lastIgnored: number | null = null;
  for (const r of ignoredRows) {
    const code = ignoredReasonCode(r.reason ?? 'unknown');
    byReason[code] = (byReason[code] ?? 0) + Number(r.count);
    const last = dateFromMs(r.last_ms);
    if (last) lastIgnored = Math.max(lastIgnored ?? 0, last.getTime());
  }
  const connections = await em.find(ProviderConnection, { program: programId }, { fields: ['provider', 'updatedAt'] });
  return {
    program: { id: program.id, name: program.name, domain: program.domain ?? null },
    keyMode,
    activity: {
      clicks: await activity(db.selectFrom('click'), 'clicked_at'),
      leads: await activity(db.selectFrom('customer'), 'created_at'),
      sales: await activity(db.selectFrom('sale'), 'received_at'),
      refunds: await activity(db.selectFrom('refund'), 'created_at'),
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
