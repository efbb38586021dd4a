/** Inputs and results of the server client (`createTrackerClient`). camelCase here, snake_case on the wire. */

/**
 * An upper-case ISO 4217 code: USD, EUR or VND on every service, and any other the service's
 * `CURRENCIES` setting enables (else the sale is answered 422 `unsupported_currency`).
 */
export type Currency = 'USD' | 'EUR' | 'VND' | (string & {});
export type SaleType = 'payment' | 'subscription';
export type SubscriptionInterval = 'monthly' | 'quarterly' | 'annual';

/**
 * Every method resolves to this, never rejects after sending. `ok` is true on 2xx; `status` is 0
 * on a network error or timeout; `data` is the parsed body on success, else null; `error` is
 * `"<error.code>: <message>"` from the server (or the network error) on failure; `code` is the
 * server's `error.code` alone, the field to branch on (spec "Errors").
 */
export type TrackerResult<T> = {
  ok: boolean;
  status: number;
  data: T | null;
  error: string | undefined;
  code: string | undefined;
  /** On a 429: the server's `retry_after_seconds`, when it sent one. */
  retryAfterSeconds?: number;
};

export type TrackLeadInput = {
  /** Your own user id; the same value must be sent as `customerExternalId` with the sale. */
  customerExternalId?: string;
  /** The `tracker_click_id` cookie value. At least one of the two ids is required. */
  clickId?: string;
  email?: string;
  eventName?: string;
  additionalData?: Record<string, unknown>;
};

export type TrackSaleInput = {
  /** Tried first for attribution. At least one of `customerExternalId` and `clickId` is required. */
  customerExternalId?: string;
  clickId?: string;
  /** Integer minor units (4900 = 49.00), positive. */
  amount: number;
  /** Your payment id: the idempotency key (`transaction_id`). A reuse answers 409 `duplicate_transaction`. */
  invoiceId: string;
  /** Tax included in `amount`, integer minor units; recorded, not used for the commission. */
  taxCents?: number;
  currency?: Currency;
  saleType?: SaleType;
  isRecurring?: boolean;
  subscriptionId?: string;
  subscriptionInterval?: SubscriptionInterval;
  eventName?: string;
  email?: string;
  additionalData?: Record<string, unknown>;
  /** Where the payment was made, when a helper reports it (`x402`); omitted for your own checkout. */
  provider?: 'x402';
  /**
   * The partner's referral code the payment came with (x402: the request's `X-Referral`). Binds
   * `customerExternalId` to that partner when no click attributes the sale; a customer already
   * bound keeps its partner, and an unknown code binds nothing (the sale attributes as without it).
   */
  referralCode?: string;
  /** Where the referred request was made; recorded as the referral click's link. */
  referralUrl?: string;
};

/** A test sale: recorded in test mode (`additional_data.test_mode: true`), no customer needed. */
export type TrackTestSaleInput = {
  amount?: number;
  invoiceId?: string;
  currency?: Currency;
  additionalData?: Record<string, unknown>;
};

export type TrackRefundInput = {
  /** The `invoiceId` given to `trackSale`. */
  invoiceId: string;
  /** This refund's own amount (not a running total), integer minor units; omit or 0 refunds the rest. */
  refundAmountCents?: number;
  /** Your refund id; makes two equal partial refunds distinct. */
  refundId?: string;
  refundReason?: string;
  reason?: 'refund' | 'chargeback';
};

export type TrackClickInput = {
  /** Full affiliate link, including `aff`. */
  affiliateUrl?: string;
  pageUrl?: string;
  referrerUrl?: string;
  /** The current click id; the new click replaces it (last-partner attribution). */
  existingClickId?: string;
  visitorId?: string;
};

export type SaleResponse =
  | { success: true; sale_id: number; commission_id: number; message: string }
  | {
      success: true;
      attributed: false;
      reason: 'attribution_window_expired';
      click_age_days: number;
      window_days: number;
      sale_id: null;
      commission_id: null;
    }
  | { success: true; message: string; data: { eventId: number; programId: number; test_mode: boolean } };

export type RefundResponse =
  | { success: true; status: 'reversed' | 'refunded'; deductionAmount: number; commission_id: number }
  | { success: true; status: 'no_commission'; message: string }
  | { success: true; status: 'skipped'; reason: string; commission_id: number };

export type ClickResponse = { success: true; click_id: string; partner_code: string; cookie_window_days: number };

/** Lead and status bodies are not fixed by the spec. */
export type JsonObject = Record<string, unknown>;

export type TrackerClientOptions = {
  apiKey: string;
  apiUrl?: string;
  /** Needed where no global fetch exists, or to add instrumentation. */
  fetch?: typeof fetch;
  /** Per-request timeout; a timed-out call resolves with `status: 0`. Default 10 000 ms. */
  timeoutMs?: number;
};

export type TrackerClient = {
  /** Throws a TypeError before sending without `customerExternalId` and `clickId`. */
  trackLead(input: TrackLeadInput): Promise<TrackerResult<JsonObject>>;
  /** Throws before sending: no customer id nor click id, `amount` not a positive integer, no `invoiceId`. */
  trackSale(input: TrackSaleInput): Promise<TrackerResult<SaleResponse>>;
  /** A sale in test mode (`additional_data.test_mode: true`): no customer, amount or invoice needed. */
  trackTestSale(input?: TrackTestSaleInput): Promise<TrackerResult<SaleResponse>>;
  /** Throws before sending without `invoiceId`, or with a negative or fractional `refundAmountCents`. */
  trackRefund(input: TrackRefundInput): Promise<TrackerResult<RefundResponse>>;
  /** Keyless, like the browser tracker's click call. */
  trackClick(input?: TrackClickInput): Promise<TrackerResult<ClickResponse>>;
  /** `GET /api/v1/cli/status`: checks the key and the program. */
  status(): Promise<TrackerResult<JsonObject>>;
};
