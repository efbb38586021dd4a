import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { toRecord } from '../shared/records.ts';
import { Click } from '../entities/click.ts';
import { LISTABLE, LIST_EXCLUDED, isListableKind, type ListableKind, type ListedRecord } from './listable.ts';

/** Lists that can be filtered by `partner_id`. */
const BY_PARTNER = new Set<ListableKind>(['clicks', 'customers', 'sales', 'commissions', 'payouts', 'partner-codes']);
/** The lists whose rows have a `status` (the only ones a `status` filter applies to). */
export const STATUS_LISTS: ReadonlySet<ListableKind> = new Set([
  'commissions',
  'api-keys',
  'webhook-events',
  'payouts',
  'parked-refunds',
]);

/** The lists whose rows name a payment provider (the only ones a `provider` filter applies to). */
export const PROVIDER_LISTS: ReadonlySet<ListableKind> = new Set(['sales', 'webhook-events', 'parked-refunds']);

/** A page of a program's records, newest first, optionally filtered by status, provider or partner. */
export async function listRecords<K extends ListableKind>(
  deps: CoreDeps,
  programId: number,
  kind: K,
  opts: {
    limit: number;
    offset: number;
    status?: string;
    provider?: string;
    partnerId?: number;
    held?: boolean;
    /**
     * Keyset: only rows older than the previous page's last, so a deep page costs one page. A row id;
     * on clicks (ordered by time: their ids are random UUIDs) that click's id.
     */
    before?: number | string;
  },
): Promise<ListedRecord<K>[]> {
  if (!isListableKind(kind)) throw new AppError('not_found', `Unknown list "${String(kind)}"`);
  const entity = LISTABLE[kind];
  const where: Record<string, unknown> = { program: programId };
  if (opts.status !== undefined) {
    if (!STATUS_LISTS.has(kind))
      throw new AppError(
        'invalid_request',
        `The ${kind} list has no status; status filters apply to: ${[...STATUS_LISTS].join(', ')}`,
        { field: 'status' },
      );
    where.status = opts.status;
  }
  if (opts.provider !== undefined) {
    if (!PROVIDER_LISTS.has(kind))
      throw new AppError(
        'invalid_request',
        `The ${kind} list has no provider; provider filters apply to: ${[...PROVIDER_LISTS].join(', ')}`,
        { field: 'provider' },
      );
    where.provider = opts.provider;
  }
  if (opts.partnerId !== undefined) {
    if (!BY_PARTNER.has(kind))
      throw new AppError('invalid_request', `${kind} cannot be filtered by partner_id`, { field: 'partner_id' });
    where.partner = opts.partnerId;
  }
  if (opts.held !== undefined) {
    if (kind !== 'commissions')
      throw new AppError('invalid_request', 'Only commissions can be filtered by held', { field: 'held' });
    where.heldForReview = opts.held;
  }
  // Clicks page by time (their ids are random), the others by id: newest first either way.
  const orderBy = kind === 'clicks' ? { createdAt: 'desc', id: 'desc' } : { id: 'desc' };
  if (kind === 'clicks' && opts.before !== undefined) {
    const last = await deps.em.findOne(
      Click,
      { id: String(opts.before), program: programId },
      { fields: ['createdAt'] },
    );
    if (!last) throw new AppError('invalid_request', 'before names no click of this program', { field: 'before' });
    // `createdAt <= last` bounds the (program, time) index scan; the `or` alone is only a filter
    // and walked every newer click first (a deep page of 10 M clicks: a second).
    where.createdAt = { $lte: last.createdAt };
    where.$or = [{ createdAt: { $lt: last.createdAt } }, { id: { $lt: opts.before } }];
  } else if (opts.before !== undefined) where.id = { $lt: opts.before };
  const excluded: readonly string[] | undefined = Object.hasOwn(LIST_EXCLUDED, kind)
    ? LIST_EXCLUDED[kind as keyof typeof LIST_EXCLUDED]
    : undefined;
  const exclude = excluded ? { exclude: [...excluded] } : {};
  const rows = await deps.em.find(
    entity as never,
    where as never,
    { limit: opts.limit, offset: opts.offset, orderBy: orderBy as never, ...exclude } as never,
  );
  return rows.map((r) => toRecord(r as object) as ListedRecord<K>);
}
