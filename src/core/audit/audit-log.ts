import type { CoreDeps } from '../deps.ts';
import { AuditEntry, type AuditActorKind, type AuditVia, type IAuditEntry } from '../entities/audit-entry.ts';
import { redactSecrets } from './redact-secrets.ts';

/** Who made a change and from where, as the HTTP edge knows it. */
export type AuditActor = {
  kind: AuditActorKind;
  staffUserId: number | null;
  email: string | null;
  tokenId: number | null;
  via: AuditVia;
  ip: string;
  userAgent: string | null;
};

/** One change: the route it went through and the state around it (redacted here, whatever is given). */
export type AuditChange = {
  programId: number | null;
  action: string;
  path: string;
  status: number;
  before: unknown;
  after: unknown;
};

/** Appends one entry (the only write this table takes: a trigger refuses UPDATE and DELETE). */
export async function recordAuditEntry(deps: CoreDeps, actor: AuditActor, change: AuditChange): Promise<void> {
  const em = deps.em.fork();
  em.create(AuditEntry, {
    programId: change.programId,
    actorKind: actor.kind,
    staffUserId: actor.staffUserId,
    actorEmail: actor.email,
    tokenId: actor.tokenId,
    via: actor.via,
    ip: actor.ip,
    userAgent: actor.userAgent?.slice(0, 500) ?? null,
    action: change.action,
    path: change.path,
    status: change.status,
    before: change.before === undefined ? null : redactSecrets(change.before),
    after: change.after === undefined ? null : redactSecrets(change.after),
    createdAt: deps.clock(),
  });
  await em.flush();
}

/** Filters of the audit log list; every one optional. */
export type AuditFilter = {
  /** Null: every program's and the deployment's entries (operator only). */
  programId: number | null;
  actorEmail?: string;
  /** A part of the action, e.g. `payout` or `PATCH`. */
  action?: string;
  via?: AuditVia;
  from?: Date;
  to?: Date;
  /** Entries older than this id (the next page). */
  beforeId?: number;
  limit: number;
};

/** Entries newest first, filtered. */
export async function listAuditEntries(deps: CoreDeps, f: AuditFilter): Promise<IAuditEntry[]> {
  const where: Record<string, unknown> = {};
  if (f.programId !== null) where.programId = f.programId;
  if (f.actorEmail) where.actorEmail = f.actorEmail.trim().toLowerCase();
  if (f.action) where.action = { $ilike: `%${f.action.replace(/[%_\\]/g, (c) => `\\${c}`)}%` };
  if (f.via) where.via = f.via;
  if (f.from || f.to) where.createdAt = { ...(f.from ? { $gte: f.from } : {}), ...(f.to ? { $lt: f.to } : {}) };
  if (f.beforeId) where.id = { $lt: f.beforeId };
  return deps.em.find(AuditEntry, where, { orderBy: { id: 'desc' }, limit: f.limit });
}
