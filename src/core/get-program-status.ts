import type { CoreDeps } from './deps.ts';
import { Program } from './entities/program.ts';
import { ProviderConnection } from './entities/provider-connection.ts';
import { ignoredReasonCode } from './ignored-reasons.ts';

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
  const activity = async (table: string, column: string): Promise<Activity> => {
    const [row = { count: '0', last_at: null }] = await em.execute<{ count: string; last_at: Date | string | null }[]>(
      `select count(*) as count, max(${column}) as last_at from ${table} where program_id = ?`,
      [programId],
    );
    return { count: Number(row.count), lastAt: row.last_at ? new Date(row.last_at) : null };
  };
  // Provider events that recorded nothing, per reason (docs/providers.md lists them).
  const ignoredRows = await em.execute<{ reason: string | null; count: string; last_at: Date | string | null }[]>(
    `select error as reason, count(*) as count, max(received_at) as last_at from webhook_event where program_id = ? and status = 'ignored' group by error`,
    [programId],
  );
  const byReason: Record<string, number> = {};
  let lastIgnored: number | null = null;
  for (const r of ignoredRows) {
    const code = ignoredReasonCode(r.reason ?? 'unknown');
    byReason[code] = (byReason[code] ?? 0) + Number(r.count);
    if (r.last_at) lastIgnored = Math.max(lastIgnored ?? 0, new Date(r.last_at).getTime());
  }
  const connections = await em.find(ProviderConnection, { program: programId }, { fields: ['provider', 'updatedAt'] });
  return {
    program: { id: program.id, name: program.name, domain: program.domain ?? null },
    keyMode,
    activity: {
      clicks: await activity('click', 'clicked_at'),
      leads: await activity('customer', 'created_at'),
      sales: await activity('sale', 'received_at'),
      refunds: await activity('refund', 'created_at'),
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
