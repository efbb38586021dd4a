import type { EntityManager } from '@mikro-orm/sql';
import type {
  CheckOutboundUrl,
  EndpointSubscription,
  ExpiringMap,
  ListTransfers,
  LookupDiscountCodes,
  LookupPaidSale,
  LookupPaymentAlias,
  NewInboxRow,
  PartnerRef,
  PartnerTerms,
  ProgramSnapshot,
  SendTransfer,
  StoredWebhook,
  VerificationSecret,
} from './ports.ts';
import type { EmailHasher } from './shared/email-hash.ts';
import type { Sealer } from './shared/sealed-secrets.ts';
import type { AcceptedCurrencies } from './shared/currencies.ts';

/** Injected clock: the only time source of the core (tests move it). */
export type Clock = () => Date;

/** The logging surface core needs (pino's logger satisfies it). */
export type Logger = {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
};

/**
 * Money moved by a committed use-case, reported for monitoring (the metrics module implements it;
 * absent in tests that call use-cases directly). Amounts are minor units of `currency`, per event.
 */
export type MoneyEvents = {
  saleRecorded(e: {
    provider: string | null;
    currency: string;
    amountCents: number;
    commissionCents: number | null;
  }): void;
  refundApplied(e: { provider: string | null; currency: string; refundedCents: number; deductionCents: number }): void;
};

/**
 * What a process keeps between calls, created once with the app context (`createCoreCaches`),
 * never at module level: settings read recently (settings-cache.ts) and the webhook inbox's
 * acknowledgement batcher.
 */
export type CoreCaches = {
  programs: ExpiringMap<number, ProgramSnapshot>;
  /** Referral code → partner. */
  partners: ExpiringMap<string, PartnerRef>;
  /** `${programId}-${provider}` → the connection's secrets (`null`: not connected). */
  secrets: ExpiringMap<string, readonly VerificationSecret[] | null>;
  /** Partner id → the partner's group and its reward rules (partner-groups.ts). */
  rewardTerms: ExpiringMap<number, PartnerTerms>;
  /** Program id → its active outbound event endpoints (outbound/emit-events.ts). */
  eventEndpoints: ExpiringMap<number, readonly EndpointSubscription[]>;
  inboxWriter: InboxWriter;
};

/** One inbox row to insert, with the deps of the request that stores it (webhook-inbox.ts). */
export type InboxWrite = { deps: CoreDeps; row: NewInboxRow };
/** Batches the inbox rows that arrive together into one insert (webhook-inbox.ts `createInboxWriter`). */
export type InboxWriter = (w: InboxWrite) => Promise<StoredWebhook>;

/**
 * What every use-case receives. `em` is a fork owned by the caller (one per job or request): a
 * use-case uses it as given, and takes a unit of work of its own only through `forkDeps`. (Code
 * handed a `Db` rather than deps, the startup read of db/service-instance.ts, forks its own.)
 */
export type CoreDeps = {
  em: EntityManager;
  clock: Clock;
  log: Logger;
  events?: MoneyEvents;
  caches: CoreCaches;
  /** The currencies sales may be recorded in (the `CURRENCIES` setting); absent: the contract's three. */
  currencies?: AcceptedCurrencies;
  /** The installation's lead-email hash (email-hash.ts), for comparing a partner's email with a customer's. */
  hashEmail?: EmailHasher;
  /** Seals and opens stored secrets (sealed-secrets.ts); absent: none can be stored or read. */
  sealer?: Sealer;
  /** Asks a provider's API for a sale's discount codes (discount-lookup.ts); absent: never asked. */
  lookupDiscountCodes?: LookupDiscountCodes;
  /** Asks a provider's API which id its refunds name for a sale (alias-lookup.ts); absent: never asked. */
  lookupPaymentAlias?: LookupPaymentAlias;
  /** Asks a provider's API which sale a refunded payment paid (refund-sale-lookup.ts); absent: never asked. */
  lookupPaidSale?: LookupPaidSale;
  /** The URL guard's check of an outbound URL before it is stored (outbound/outbound-target.ts). */
  checkOutboundUrl: CheckOutboundUrl;
  /** Makes a Stripe Connect transfer (payout-transfers.ts); absent: Stripe Connect runs cannot send. */
  sendTransfer?: SendTransfer;
  /** Lists the transfers Stripe made for a run's payouts, read before any send (payout-transfers.ts). */
  listTransfers?: ListTransfers;
  /** Email to partners (email/): present when an SMTP server is configured; absent, none is written. */
  mail?: MailSettings;
};

/** What writing an email needs: the service's public URL (links) and the key signing unsubscribe links. */
export type MailSettings = { baseUrl: string; linkKey: Buffer };

/**
 * The same deps with a unit of work of its own (a new fork of `em`, sharing no identity map with
 * the caller's), where core genuinely needs one: each item of a batch that settles its items alone
 * (webhook rows run together, the hold-period sweep's approvals), and the second committed step of
 * a use-case that must start from what the database holds, not from the entities its first step
 * left in the caller's context (releasing a held commission approves it). The only fork in core
 * apart from db/service-instance.ts.
 */
export function forkDeps(deps: CoreDeps): CoreDeps {
  return { ...deps, em: deps.em.fork() };
}

export const DAY_MS = 86_400_000;
