import type { CoreDeps } from './deps.ts';
import { AppError } from './errors.ts';
import { toRecord, type StoredRecord } from './records.ts';
import { Click } from './entities/click.ts';
import { Customer } from './entities/customer.ts';
import { Sale } from './entities/sale.ts';
import { Commission } from './entities/commission.ts';
import { Refund } from './entities/refund.ts';
import { Partner } from './entities/partner.ts';
import { ApiKey } from './entities/api-key.ts';
import { Notification } from './entities/notification.ts';
import { WebhookEvent } from './entities/webhook-event.ts';
import { TestEvent } from './entities/test-event.ts';
import { PlatformFee } from './entities/platform-fee.ts';
import { AttributionConflict } from './entities/attribution-conflict.ts';
import { ProviderConnection } from './entities/provider-connection.ts';
import { Payout } from './entities/payout.ts';

/** What the admin API and CLI can list per program. Key hashes and secrets are never included. */
export const LISTABLE = {
  clicks: Click,
  customers: Customer,
  sales: Sale,
  commissions: Commission,
  refunds: Refund,
  partners: Partner,
  'api-keys': ApiKey,
  notifications: Notification,
  'webhook-events': WebhookEvent,
  'test-events': TestEvent,
  'platform-fees': PlatformFee,
  'provider-connections': ProviderConnection,
  'attribution-conflicts': AttributionConflict,
  payouts: Payout,
} as const;
/** Lists that can be filtered by `partner_id`. */
const BY_PARTNER = new Set<ListableKind>(['clicks', 'customers', 'sales', 'commissions', 'payouts']);
export type ListableKind = keyof typeof LISTABLE;
/** The names of the lists, in the order above. */
export const LISTABLE_KINDS = Object.keys(LISTABLE) as [ListableKind, ...ListableKind[]];
/** The lists whose rows have a `status` (the only ones a `status` filter applies to). */
export const STATUS_LISTS: ReadonlySet<ListableKind> = new Set([
  'commissions',
  'api-keys',
  'webhook-events',
  'payouts',
]);

/** Own keys only: `constructor` or `__proto__` is not a list. */
export function isListableKind(name: unknown): name is ListableKind {
  return typeof name === 'string' && Object.hasOwn(LISTABLE, name);
}
/** The lists whose rows name a payment provider (the only ones a `provider` filter applies to). */
export const PROVIDER_LISTS: ReadonlySet<ListableKind> = new Set(['sales', 'webhook-events']);

/** A page of a program's records, newest first, optionally filtered by status, provider or partner. */
export async function listRecords(
  deps: CoreDeps,
  programId: number,
  kind: ListableKind,
  opts: { limit: number; offset: number; status?: string; provider?: string; partnerId?: number },
): Promise<StoredRecord[]> {
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
  // The inbox list leaves the raw payloads out (buyer data, and large): one event's detail has it.
  const exclude = kind === 'webhook-events' ? { exclude: ['payload'] } : {};
  const rows = await deps.em.find(
    entity as never,
    where as never,
    { limit: opts.limit, offset: opts.offset, orderBy: { id: 'desc' } as never, ...exclude } as never,
  );
  return rows.map((r) => toRecord(r as object));
}
