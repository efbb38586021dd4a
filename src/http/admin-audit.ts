import type { H3Event } from 'h3';
import type { RouteContext } from './http-context.ts';
import type { Handler } from './route.ts';
import { clientAddress } from './client-address.ts';
import { recordAuditEntry, type AuditActor } from '../core/audit/audit-log.ts';
import type { AuditVia } from '../core/entities/audit-entry.ts';
import { routeProgramId } from './admin-permissions.ts';

/** The User-Agent the admin CLI sends: its changes are recorded as made from `cli`. */
export const ADMIN_CLI_USER_AGENT = 'tracker-admin-cli';

/** Reads the state a change is about to alter (the audit entry's `before`). */
export type BeforeReader = (event: H3Event) => Promise<unknown>;

/**
 * Wraps an admin write so that, once it succeeded, one audit entry records who made it, from
 * where, the route, and the state before (when `before` can read it) and after (the response
 * body; secrets are redacted by core/audit). Failed calls change nothing and are not recorded.
 * A failure to record is logged at error level: the change itself is already committed.
 */
export function audited(ctx: RouteContext, action: string, fn: Handler, before?: BeforeReader): Handler {
  return async (event) => {
    const prior = before ? await before(event).catch(() => undefined) : undefined;
    const out = await fn(event);
    const status = out instanceof Response ? out.status : 200;
    if (status >= 400) return out;
    const after = out instanceof Response ? await responseJson(out) : out;
    const programId = routeProgramId(event) ?? programOfBody(after);
    await recordAuditEntry(ctx.deps(), auditActor(ctx, event), {
      programId,
      action,
      path: event.url.pathname,
      status,
      before: prior,
      after,
    }).catch((err: unknown) =>
      ctx.log.error({ err, reqId: event.context.requestId, action }, 'audit entry not recorded'),
    );
    return out;
  };
}

/** Who is calling, from where (the caller was set by `requireOperator`). */
export function auditActor(ctx: RouteContext, event: H3Event): AuditActor {
  const caller = event.context.admin;
  const userAgent = event.req.headers.get('user-agent');
  const via: AuditVia =
    event.context.session || event.url.pathname.startsWith('/api/v1/dashboard/')
      ? 'dashboard'
      : userAgent?.startsWith(ADMIN_CLI_USER_AGENT)
        ? 'cli'
        : 'api';
  return {
    kind: caller?.kind ?? 'operator',
    staffUserId: caller?.kind === 'staff' ? caller.staffUserId : null,
    email: caller?.kind === 'staff' ? caller.email : null,
    tokenId: caller?.kind === 'staff' ? (caller.token?.id ?? null) : null,
    via,
    ip: clientAddress(event, ctx.config.TRUST_PROXY),
    userAgent,
  };
}

async function responseJson(res: Response): Promise<unknown> {
  if (!res.headers.get('content-type')?.includes('json')) return { status: res.status };
  return res
    .clone()
    .json()
    .catch(() => null);
}

/** A deployment-wide route's program, when its result names one (a staff token's `program_id`). */
function programOfBody(body: unknown): number | null {
  const b = body as { token?: { program_id?: unknown }; program?: { id?: unknown } } | null;
  const v = b?.token?.program_id ?? b?.program?.id;
  return typeof v === 'number' ? v : null;
}
