import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { AppError } from '../../core/shared/errors.ts';
import { listRecords } from '../../core/reporting/list-records.ts';
import { LISTABLE_KINDS, isListableKind, type ListableKind, type ListedRecord } from '../../core/reporting/listable.ts';
import { keysetBefore, MAX_ROW_ID, validatePage } from '../validate.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import { programKey } from '../../read-routing.ts';
import { recordToWire, row, type RecordListWire } from '../wire/records.ts';
import type { AdminHelpers } from './admin-helpers.ts';

export const listQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  offset: z.coerce.number().int().min(0).default(0),
  status: z
    .string()
    .regex(/^[a-z_]{1,32}$/, 'status is a lower-case word')
    .optional(),
  provider: z
    .string()
    .regex(/^[a-z_]{1,32}$/, 'provider is a lower-case word')
    .optional(),
  partner_id: z.coerce.number().int().positive().max(MAX_ROW_ID).optional(),
  /** Keyset: a row id, or on `clicks` a click's id (UUID): the last of the previous page. */
  before: z.union([keysetBefore.unwrap(), z.guid()]).optional(),
  /** Commissions only: `true` lists those held for review (fraud rules or a disputed customer). */
  held: z.enum(['true', 'false']).optional(),
});

/** The list route's body: the page under the list's name. */
const listBody = <K extends ListableKind>(kind: K, records: ListedRecord<K>[]) =>
  ({ [kind]: records.map(recordToWire) }) as RecordListWire<K>;

/** `GET /programs/:id/:list`: one page of any listable kind of a program's records, newest first. */
export function registerRecordListRoute(ctx: RouteContext, { on, num }: AdminHelpers): void {
  on('get', '/programs/:id/:list', async (e) => {
    const kind = e.context.params?.list;
    if (!isListableKind(kind)) throw new AppError('not_found', `Unknown list; one of: ${LISTABLE_KINDS.join(', ')}`);
    const q = validatePage(listQuerySchema, Object.fromEntries(e.url.searchParams));
    if (typeof q.before === 'string' && kind !== 'clicks')
      throw new AppError('invalid_request', 'before is the id of the previous page’s last row', { field: 'before' });
    const programId = num(e, 'id');
    const records = await ctx.reads.read([programKey(programId)], (d) =>
      listRecords(d, programId, kind, {
        limit: q.limit,
        offset: q.offset,
        status: q.status,
        provider: q.provider,
        partnerId: q.partner_id,
        before: q.before,
        held: q.held === undefined ? undefined : q.held === 'true',
      }),
    );
    return listBody(kind, records);
  });
}

const id = z.number().int().positive();

export const recordListOperations = [
  adminOperation('get', '/programs/:id/:list', 'listRecords', "List a program's records (newest first)", {
    params: { id, list: z.enum(LISTABLE_KINDS) },
    query: listQuerySchema,
    errors: ['not_found', 'invalid_request'],
    responses: {
      200: {
        description: "One page of the list, under the list's name",
        schema: z.partialRecord(z.enum(LISTABLE_KINDS), z.array(row)),
      },
    },
  }),
];
