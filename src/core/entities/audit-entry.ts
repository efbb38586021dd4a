import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Who made an audited change: the operator's ADMIN_TOKEN (break-glass) or a staff user. */
export type AuditActorKind = 'operator' | 'staff' | 'mcp_token';
/** Where it came from: the dashboard (session cookie), the admin CLI, or any other API client. */
export type AuditVia = 'dashboard' | 'cli' | 'api' | 'mcp';

/**
 * One change made through the admin API, append-only: a database trigger refuses UPDATE and
 * DELETE of this table (migration staff_and_audit). `before`/`after` hold the state around the
 * change with secrets redacted; no foreign keys, so an entry outlives what it names.
 */
export const AuditEntry = defineEntity({
  name: 'AuditEntry',
  indexes: [{ properties: ['programId', 'id'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    /** The program the change was made in; null for a deployment-wide change. */
    programId: p.integer().nullable(),
    actorKind: p.string().$type<AuditActorKind>(),
    staffUserId: p.integer().nullable(),
    actorEmail: p.string().nullable(),
    /** The staff token the call was made with, if any. */
    tokenId: p.integer().nullable(),
    via: p.string().$type<AuditVia>(),
    ip: p.string(),
    userAgent: p.text().nullable(),
    /** `METHOD /route/pattern` of the admin route. */
    action: p.string(),
    path: p.text(),
    status: p.integer(),
    before: p.json<unknown>().nullable(),
    after: p.json<unknown>().nullable(),
    createdAt: p.datetime(),
  },
});
export type IAuditEntry = InferEntity<typeof AuditEntry>;
