import { z } from 'zod';
import type { H3Event } from 'h3';
import type { RouteContext } from '../http-context.ts';
import { listAuditEntries, type AuditFilter } from '../../core/audit/audit-log.ts';
import type { IAuditEntry } from '../../core/entities/audit-entry.ts';
import { withoutDatabaseBound } from '../../core/db/db-bound.ts';
import { CsvEncoder } from '../csv-encoder.ts';
import { MAX_ROW_ID, validate } from '../validate.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import type { AdminHelpers } from './admin-helpers.ts';

const auditQuery = z.strictObject({
  actor: z.string().max(254).optional().meta({ description: 'The email of a staff user' }),
  action: z.string().max(100).optional().meta({ description: 'A part of the action, e.g. `payouts` or `PATCH`' }),
  via: z.enum(['dashboard', 'cli', 'api', 'mcp']).optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  before: z.coerce.number().int().positive().max(MAX_ROW_ID).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

/** The most rows one CSV download holds (narrow the window for more). */
/** Entries per page of the CSV download (the whole filtered log is streamed, page by page). */
export const CSV_PAGE_ROWS = 500;

const entryJson = z.strictObject({
  id: z.number().int(),
  created_at: z.iso.datetime(),
  program_id: z.number().int().nullable(),
  actor_kind: z.enum(['operator', 'staff', 'mcp_token']),
  actor_email: z.string().nullable(),
  staff_user_id: z.number().int().nullable(),
  token_id: z.number().int().nullable(),
  via: z.enum(['dashboard', 'cli', 'api', 'mcp']),
  ip: z.string(),
  user_agent: z.string().nullable(),
  action: z.string(),
  path: z.string(),
  status: z.number().int(),
  before: z.unknown().nullable().meta({ description: 'State before the change, secrets redacted' }),
  after: z.unknown().nullable().meta({ description: 'The change and its result, secrets redacted' }),
});

export type AuditEntryWire = z.infer<typeof entryJson>;
export type AuditListBody = { entries: AuditEntryWire[] };

const entryToWire = (a: IAuditEntry): z.infer<typeof entryJson> => ({
  id: a.id,
  created_at: a.createdAt.toISOString(),
  program_id: a.programId ?? null,
  actor_kind: a.actorKind,
  actor_email: a.actorEmail ?? null,
  staff_user_id: a.staffUserId ?? null,
  token_id: a.tokenId ?? null,
  via: a.via,
  ip: a.ip,
  user_agent: a.userAgent ?? null,
  action: a.action,
  path: a.path,
  status: a.status,
  before: a.before ?? null,
  after: a.after ?? null,
});

const CSV_HEADER = 'id,created_at,actor_kind,actor_email,token_id,via,ip,user_agent,action,path,status,before,after\n';
const csvColumns = [
  (a: IAuditEntry) => a.id,
  (a: IAuditEntry) => a.createdAt.toISOString(),
  (a: IAuditEntry) => a.actorKind,
  (a: IAuditEntry) => a.actorEmail,
  (a: IAuditEntry) => a.tokenId,
  (a: IAuditEntry) => a.via,
  (a: IAuditEntry) => a.ip,
  (a: IAuditEntry) => a.userAgent,
  (a: IAuditEntry) => a.action,
  (a: IAuditEntry) => a.path,
  (a: IAuditEntry) => a.status,
  (a: IAuditEntry) => (a.before == null ? null : JSON.stringify(a.before)),
  (a: IAuditEntry) => (a.after == null ? null : JSON.stringify(a.after)),
];

/**
 * The audit log of a program, read-only: a filtered list and a CSV download. There is no route
 * that changes or deletes an entry, and the table refuses it (a trigger).
 */
export function registerAuditLogRoutes(ctx: RouteContext, { on, num }: AdminHelpers): void {
  const filter = (e: H3Event, limit?: number): AuditFilter => {
    const q = validate(auditQuery, Object.fromEntries(e.url.searchParams));
    return {
      programId: num(e, 'id'),
      actorEmail: q.actor,
      action: q.action,
      via: q.via,
      from: q.from ? new Date(q.from) : undefined,
      to: q.to ? new Date(q.to) : undefined,
      beforeId: q.before,
      limit: limit ?? q.limit,
    };
  };
  on('get', '/programs/:id/audit', async (e) => ({
    entries: (await listAuditEntries(ctx.deps(), filter(e))).map(entryToWire),
  }));
  on('get', '/programs/:id/audit/export', async (e) => {
    const deps = ctx.deps();
    const f = filter(e, CSV_PAGE_ROWS);
    const encoder = new CsvEncoder(csvColumns);
    // The first page within the request's database bound (a hung database is a 503, not a broken
    // download); then page by page, newest first, each read only when the one before was taken.
    let page = await listAuditEntries(deps, f);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(Buffer.from(CSV_HEADER));
      },
      async pull(controller) {
        if (!page.length) return controller.close();
        controller.enqueue(encoder.encode(page));
        const beforeId = page.at(-1)!.id;
        page =
          page.length < CSV_PAGE_ROWS
            ? []
            : await withoutDatabaseBound(() => listAuditEntries(deps, { ...f, beforeId }));
      },
    });
    return new Response(body, {
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="program-${num(e, 'id')}-audit.csv"`,
      },
    });
  });
}

const id = z.number().int().positive();

export const auditLogOperations = [
  adminOperation('get', '/programs/:id/audit', 'listAuditEntries', 'The audit log, newest first', {
    params: { id },
    query: auditQuery,
    responses: { 200: { description: 'Entries', schema: z.strictObject({ entries: z.array(entryJson) }) } },
  }),
  adminOperation('get', '/programs/:id/audit/export', 'exportAuditEntries', 'The audit log as CSV', {
    params: { id },
    query: auditQuery,
    responses: { 200: { description: 'The CSV (header row first)', contentType: 'text/csv' } },
  }),
];
