import type { Activity, ProgramStatus } from '../../core/reporting/get-program-status.ts';

const activityToWire = (a: Activity) => ({ count: a.count, last_at: a.lastAt?.toISOString() ?? null });

/** `GET /api/v1/cli/status` without its `success` and key warnings. */
export function programStatusToWire(s: ProgramStatus) {
  return {
    program: { id: s.program.id, name: s.program.name, domain: s.program.domain },
    key_mode: s.keyMode,
    activity: {
      clicks: activityToWire(s.activity.clicks),
      leads: activityToWire(s.activity.leads),
      sales: activityToWire(s.activity.sales),
      refunds: activityToWire(s.activity.refunds),
    },
    ignored_provider_events: {
      count: s.ignoredProviderEvents.count,
      last_at: s.ignoredProviderEvents.lastAt?.toISOString() ?? null,
      by_reason: s.ignoredProviderEvents.byReason,
    },
    connected_providers: s.connectedProviders.map((c) => ({
      provider: c.provider,
      connected_at: c.connectedAt.toISOString(),
    })),
    server_time: s.serverTime.toISOString(),
  };
}
