/**
 * x402 (HTTP 402 payments, x402.org): report each settled payment of an x402 resource server as
 * a sale. Call `reportX402Settlement` after the facilitator settled the payment (after
 * `settle()`, or with the `X-PAYMENT-RESPONSE` header it answers, decoded by
 * `decodeX402PaymentResponse`):
 * - the payer's address is the customer key (an agent or API client that pays again stays its
 *   partner's customer, as any returning customer);
 * - the referral travels with the paid request: the `X-Referral` header or the `ref` query
 *   parameter (`x402ReferralOf`). It goes with the sale as data (`referral_code`): one keyed call
 *   per payment, so no per-client click limit applies, and the service uses it only for a payer no
 *   click attributes: a payer already bound keeps its partner, an unknown code binds nothing;
 * - the amount is the requirement's `maxAmountRequired` (the `exact` scheme pays exactly it), in
 *   the asset's atomic units, recorded in `currency` (default USD for USDC, 6 decimals). The
 *   service counts cents: a payment under one cent is not reported (`below_one_cent`).
 * Every payment ends recorded (`reported: true`, a 409 included: the sale was recorded before) or
 * with a `reason`, also handed to `onUnreported`. Network errors, 429 and 5xx are retried; the
 * transaction hash is the sale's idempotency key, so a retry, now or later, never records it twice.
 *
 * The input types are the fields this reads of the `x402` package's own `SettleResponse` and
 * `PaymentRequirements` (x402@1.x, `x402/types`), so a resource server passes those objects as
 * they are; the package itself is not a dependency of this client.
 */
import type { Currency, SaleResponse, TrackerClient, TrackerResult } from './client-types.ts';

/** What this reads of x402's `SettleResponse`. */
export type X402Settlement = { success: boolean; transaction: string; network: string; payer?: string };
/** What this reads of x402's `PaymentRequirements` (the one the payment satisfied). */
export type X402Requirements = { maxAmountRequired: string; resource: string; network: string };

export type X402ReportInput = {
  settlement: X402Settlement;
  requirements: X402Requirements;
  /** The partner's referral code carried by the request (`x402ReferralOf`), if any. */
  referral?: string | null;
  /** Decimals of the asset paid (USDC: 6). */
  assetDecimals?: number;
  currency?: Currency;
};

/**
 * Why a payment was not recorded:
 * - `not_settled`, `no_payer`, `below_one_cent`: nothing to report (no sale was sent);
 * - `no_attribution`: the payer is no partner's customer and no valid referral came with it
 *   (`error` says which); `window_expired`: its partner's click is older than the attribution window;
 * - `rejected`: the service refused the call (`code`: an invalid key, a bad field): fix, then report again;
 * - `unavailable`: network error, timeout, 429 or 5xx after the retries: report again later.
 */
export type X402UnreportedReason =
  'not_settled' | 'no_payer' | 'below_one_cent' | 'no_attribution' | 'window_expired' | 'rejected' | 'unavailable';

export type X402Unreported = {
  reported: false;
  reason: X402UnreportedReason;
  /** True for `unavailable`: the same input reported again later records the sale at most once. */
  retryable: boolean;
  /** The settlement's transaction hash (the sale's `transaction_id`). */
  transaction: string;
  /** The service's answer: `"<code>: <message>"`, or the network error. */
  error?: string;
  code?: string;
  status?: number;
};

export type X402ReportResult =
  | { reported: true; sale: TrackerResult<SaleResponse>; /** 409: recorded by an earlier report. */ duplicate: boolean }
  | X402Unreported;

export type X402ReportOptions = {
  /** Called with every payment not recorded (and its input): the place to log it or queue a later retry. */
  onUnreported?: (result: X402Unreported, input: X402ReportInput) => void;
  /** Calls made for a retryable failure before answering `unavailable`. Default 3. */
  attempts?: number;
  /** Longest wait between attempts; a longer 429 `retry_after_seconds` answers `unavailable` at once. Default 5000. */
  maxDelayMs?: number;
};

/** Longest referral code sent (the service's field limit); a longer one names no partner anyway. */
const MAX_REFERRAL = 255;
const MAX_URL = 2048;

/** The referral of a paid request: the `x-referral` header, else the `ref` query parameter. */
export function x402ReferralOf(request: { url: string; headers: Headers }): string | null {
  const value = request.headers.get('x-referral') ?? new URL(request.url, 'http://x').searchParams.get('ref');
  return value?.trim() ? value.trim() : null;
}

/** The facilitator's `X-PAYMENT-RESPONSE` header (base64 of the settlement's JSON). */
export function decodeX402PaymentResponse(header: string): X402Settlement {
  const bytes = Uint8Array.from(atob(header), (c) => c.charCodeAt(0));
  return JSON.parse(new TextDecoder().decode(bytes)) as X402Settlement;
}

/** Atomic units of an asset with `decimals` decimals, as whole cents (rounded down). */
export function x402Cents(atomic: string, decimals: number): number {
  if (!/^\d+$/.test(atomic)) throw new RangeError(`maxAmountRequired must be an integer string, got "${atomic}"`);
  const cents =
    decimals >= 2 ? BigInt(atomic) / 10n ** BigInt(decimals - 2) : BigInt(atomic) * 10n ** BigInt(2 - decimals);
  if (cents > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('amount too large');
  return Number(cents);
}

export async function reportX402Settlement(
  client: TrackerClient,
  input: X402ReportInput,
  options: X402ReportOptions = {},
): Promise<X402ReportResult> {
  const result = await report(client, input, options);
  if (!result.reported) options.onUnreported?.(result, input);
  return result;
}

async function report(client: TrackerClient, input: X402ReportInput, o: X402ReportOptions): Promise<X402ReportResult> {
  const { settlement, requirements } = input;
  const unreported = (reason: X402UnreportedReason, sale?: TrackerResult<unknown>): X402Unreported => ({
    reported: false,
    reason,
    retryable: reason === 'unavailable',
    transaction: settlement.transaction,
    ...(sale ? { error: sale.error, code: sale.code, status: sale.status } : {}),
  });
  if (!settlement.success) return unreported('not_settled');
  if (!settlement.payer) return unreported('no_payer');
  const amount = x402Cents(requirements.maxAmountRequired, input.assetDecimals ?? 6);
  if (amount < 1) return unreported('below_one_cent');
  // EVM addresses are case-insensitive (checksummed or not); Solana's are not.
  const customer = /^0x[0-9a-fA-F]{40}$/.test(settlement.payer) ? settlement.payer.toLowerCase() : settlement.payer;
  const referral = input.referral?.trim();
  const referralCode = referral && referral.length <= MAX_REFERRAL ? referral : undefined;
  const send = () =>
    client.trackSale({
      customerExternalId: customer,
      amount,
      currency: input.currency ?? 'USD',
      invoiceId: settlement.transaction,
      provider: 'x402',
      eventName: 'x402',
      additionalData: { x402_network: settlement.network, x402_resource: requirements.resource },
      ...(referralCode ? { referralCode, referralUrl: referralLink(requirements.resource, referralCode) } : {}),
    });
  const attempts = Math.max(1, o.attempts ?? 3);
  const maxDelayMs = o.maxDelayMs ?? 5_000;
  for (let attempt = 1; ; attempt++) {
    const sale = await send();
    if (sale.ok) {
      const expired = (sale.data as { attributed?: boolean } | null)?.attributed === false;
      return expired ? unreported('window_expired', sale) : { reported: true, sale, duplicate: false };
    }
    // Spec: a 409 means the sale was already recorded (an earlier report of the same payment).
    if (sale.code === 'duplicate_transaction') return { reported: true, sale, duplicate: true };
    if (sale.code === 'no_attribution') return unreported('no_attribution', sale);
    if (!(sale.status === 0 || sale.status === 429 || sale.status >= 500)) return unreported('rejected', sale);
    // A 429's own delay is waited when short; one longer than `maxDelayMs` is the caller's to wait.
    const asked = sale.retryAfterSeconds === undefined ? undefined : sale.retryAfterSeconds * 1000;
    const delay = asked ?? Math.min(250 * 2 ** (attempt - 1), maxDelayMs);
    if (attempt >= attempts || delay > maxDelayMs) return unreported('unavailable', sale);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** The resource's URL with the code as `aff`, as a partner link would carry it (none when it is no URL). */
function referralLink(resource: string, code: string): string | undefined {
  try {
    const link = new URL(resource);
    link.searchParams.set('aff', code);
    return link.toString().length <= MAX_URL ? link.toString() : undefined;
  } catch {
    return undefined;
  }
}
