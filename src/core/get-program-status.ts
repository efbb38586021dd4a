import type { CoreDeps } from './deps.ts';
import { Program } from './entities/program.ts';
import { ProviderConnection } from './entities/provider-connection.ts';
import { ignoredReasonCode } from './ignored-reasons.ts';

type Activity = { count: number; last_at: string | null };

/** Program health for `GET /api/v1/cli/status`, snake_case as on the wire. */
export async function getProgramStatus(deps: CoreDeps, programId: number, keyMode: 'live' | 'test') {
  const em = deps.em.fork();
  const program = await em.findOneOrFail(Program, { id: programId });
  const activity = async (table: string, column: string): Promise<Activity> => {
    const [row = { count: '0', last_at: null }] = await em.execute<{ count: string; last_at: Date | string | null }[]>(
      `select count(*) as count, max(${column}) as last_at from ${table} where program_id = ?`,
      [programId],
    );
    return { count: Number(row.count), last_at: row.last_at ? new Date(row.last_at).toISOString() : null };
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
    key_mode: keyMode,
    activity: {
      clicks: await activity('click', 'clicked_at'),
      leads: await activity('customer', 'created_at'),
      sales: await activity('sale', 'received_at'),
      refunds: await activity('refund', 'created_at'),
    },
    ignored_provider_events: {
      count: Object.values(byReason).reduce((a, b) => a + b, 0),
      last_at: lastIgnored === null ? null : new Date(lastIgnored).toISOString(),
      by_reason: byReason,
    },
    connected_providers: connections.map((c) => ({ provider: c.provider, connected_at: c.updatedAt.toISOString() })),
    server_time: deps.clock().toISOString(),
  };
}
