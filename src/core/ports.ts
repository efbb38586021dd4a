/**
 * The types of what core is handed through `CoreDeps` (deps.ts): the ports an adapter implements
 * (a provider's API lookups, Stripe transfers, the outbound URL guard) and the values the
 * per-process caches hold. Types only, imported from the kernel folders (shared, jobs, entities)
 * and never from a capability folder, so every capability can import them without a circle.
 */
import type { IProgram } from './entities/program.ts';
import type { ProviderSecretLabel, OutboundEventType, WebhookProvider } from './shared/vocabulary.ts';
import type { RewardRules } from './entities/program-rules.ts';
import type { WebhookEventStatus } from './entities/webhook-event.ts';
import type { CouponLookup, AliasLookup } from './jobs/sale-job.ts';
import type { SaleLookup } from './jobs/refund-job.ts';

/** A program's settings as read through the cache: a frozen copy shared by callers, not an entity. */
export type ProgramSnapshot = Readonly<IProgram>;

/** A bounded map whose entries expire (settings-cache.ts `expiringMap`). */
export type ExpiringMap<K, V> = {
  get(key: K): V | undefined;
  set(key: K, value: V): void;
  delete(key: K): void;
  clear(): void;
};

/** A partner as a referral code names it (cached per process: `CoreCaches.partners`). */
export type PartnerRef = { id: number; code: string; program: number };

/** A secret as the webhook route needs it to verify a delivery. */
export type VerificationSecret = { id: number; label: ProviderSecretLabel; secret: string; expiresAt: Date | null };

/** A partner's reward terms: their group's rules, or (`rules` null) the program's. */
export type PartnerTerms = { groupId: number | null; rules: RewardRules | null };

/** An active endpoint as the emitters see it: which types it takes (null: all). */
export type EndpointSubscription = { id: number; types: readonly OutboundEventType[] | null };

/** The inbox row a verified webhook was stored as (or found as, for a redelivery). */
export type StoredWebhook = {
  inboxId: number;
  duplicate: boolean;
  status: WebhookEventStatus;
  ignoredReason?: string | null;
};

/**
 * `found`: the codes and the provider's ids of the discounts (either can match a partner code,
 * partner-codes.ts), possibly none. `refused`: the API answered that the key or the order is not
 * valid (401, 403, 404): retrying would not help.
 * A failure worth retrying (network, timeout, 429, 5xx) is thrown as a `RetryableError`.
 */
export type DiscountLookupResult = { kind: 'found'; codes: string[] } | { kind: 'refused'; status: number };

export type LookupDiscountCodes = (lookup: CouponLookup, apiKey: string) => Promise<DiscountLookupResult>;

/**
 * `found`: the ids refunds name (the invoice's paid PaymentIntents: one, or several for an invoice
 * paid in parts), possibly none (paid out of band, by a legacy charge, or not paid yet). `refused`: the API answered that the key may
 * not read it or that it does not exist (400, 401, 403, 404): retrying would not help.
 * A failure worth retrying (network, timeout, 429, 5xx) is thrown as a `RetryableError`.
 */
export type AliasLookupResult = { kind: 'found'; aliases: string[] } | { kind: 'refused'; status: number };

export type LookupPaymentAlias = (lookup: AliasLookup, apiKey: string) => Promise<AliasLookupResult>;

/**
 * `found`: the sale ids the payment paid (Stripe: the invoices a PaymentIntent paid), possibly
 * none. `refused`: 400, 401, 403 or 404. A failure worth retrying is thrown as a `RetryableError`.
 */
export type SaleLookupResult = { kind: 'found'; transactionIds: string[] } | { kind: 'refused'; status: number };

export type LookupPaidSale = (lookup: SaleLookup, apiKey: string) => Promise<SaleLookupResult>;

export type TransferRequest = {
  amountCents: number;
  currency: string;
  /** The connected account, `acct_...`. */
  destination: string;
  idempotencyKey: string;
  transferGroup: string;
  metadata: Record<string, string>;
};

/** `ok`: the transfer's id. Otherwise the rail's message; the payout stays processing. */
export type TransferResult = { ok: true; transferId: string } | { ok: false; error: string };

export type SendTransfer = (apiKey: string, t: TransferRequest) => Promise<TransferResult>;

/** A transfer Stripe made for a payout of the program (its `metadata.payout_id`); `reversed`: in full. */
export type MadeTransfer = { transferId: string; payoutId: number; reversed: boolean };

/** Every transfer of a transfer group made for the program's payouts (`metadata.program_id`). */
export type ListTransfers = (
  apiKey: string,
  q: { transferGroup: string; programId: number },
) => Promise<{ ok: true; transfers: MadeTransfer[] } | { ok: false; error: string }>;

/**
 * Checks a URL's destination before it is stored. A host that does not resolve (yet) passes:
 * every delivery checks again, at connection time.
 * @throws OutboundTargetRefused
 */
export type CheckOutboundUrl = (url: URL) => Promise<void>;

/** An inbox row ready to insert: the keys made storable, the documents serialised. */
export type NewInboxRow = {
  provider: WebhookProvider;
  programId: number;
  dedupeKey: string;
  eventType: string;
  payload: string;
  normalised: string;
  status: WebhookEventStatus;
  ignoredReason: string | null;
  receivedAt: Date;
};
