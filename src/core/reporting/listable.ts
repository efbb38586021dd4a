import type { InferEntity } from '@mikro-orm/core';
import type { StoredRow } from '../shared/records.ts';
import { Click } from '../entities/click.ts';
import { Customer } from '../entities/customer.ts';
import { Sale } from '../entities/sale.ts';
import { Commission } from '../entities/commission.ts';
import { Refund } from '../entities/refund.ts';
import { Partner } from '../entities/partner.ts';
import { ApiKey } from '../entities/api-key.ts';
import { Notification } from '../entities/notification.ts';
import { WebhookEvent } from '../entities/webhook-event.ts';
import { TestEvent } from '../entities/test-event.ts';
import { PlatformFee } from '../entities/platform-fee.ts';
import { AttributionConflict } from '../entities/attribution-conflict.ts';
import { ProviderConnection } from '../entities/provider-connection.ts';
import { Payout } from '../entities/payout.ts';
import { ParkedRefund } from '../entities/parked-refund.ts';
import { PartnerCode } from '../entities/partner-code.ts';
import { PartnerGroup } from '../entities/partner-group.ts';
import { PayoutRun } from '../entities/payout-run.ts';

/**
 * What the admin API and CLI can list per program (list-records.ts). Key hashes and secrets are
 * never included. Entity definitions only: the dashboard's type check reads this file.
 */
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
  'parked-refunds': ParkedRefund,
  'partner-codes': PartnerCode,
  'partner-groups': PartnerGroup,
  'payout-runs': PayoutRun,
} as const;
export type ListableKind = keyof typeof LISTABLE;
/** The names of the lists, in the order above. */
export const LISTABLE_KINDS = Object.keys(LISTABLE) as [ListableKind, ...ListableKind[]];

/** Own keys only: `constructor` or `__proto__` is not a list. */
export function isListableKind(name: unknown): name is ListableKind {
  return typeof name === 'string' && Object.hasOwn(LISTABLE, name);
}

/**
 * Properties a list leaves out: the inbox list's raw payloads (buyer data, and large; one event's
 * detail has it), and a connection's sealed API key (hidden anyway: never even read for a list).
 */
export const LIST_EXCLUDED = {
  'webhook-events': ['payload'],
  'provider-connections': ['apiKeySealed'],
} as const satisfies Partial<Record<ListableKind, readonly string[]>>;

/** One row of a list as `listRecords` returns it. */
export type ListedRecord<K extends ListableKind> = Omit<
  StoredRow<InferEntity<(typeof LISTABLE)[K]>>,
  K extends keyof typeof LIST_EXCLUDED ? (typeof LIST_EXCLUDED)[K][number] : never
>;
