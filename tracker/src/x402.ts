/**
 * x402 (HTTP 402 payments, x402.org): report each settled payment of an x402 resource server as
 * a sale. Call `reportX402Settlement` after the facilitator settled the payment (after
 * `settle()`, or with the `X-PAYMENT-RESPONSE` header it answers, decoded by
 * `decodeX402PaymentResponse`):
 * - the payer's address is the customer key (an agent or API client that pays again stays its
 *   partner's customer, as any returning customer);
 * - the referral travels with the paid request: the `X-Referral` header or the `ref` query
 *   parameter (`x402ReferralOf`); given one, the payer is bound to that partner first (a click on
 *   the resource's own URL with `aff=<code>`, then a keyed lead), as a browser visitor would be;
 * - the amount is the requirement's `maxAmountRequired` (the `exact` scheme pays exactly it), in
 *   the asset's atomic units, recorded in `currency` (default USD for USDC, 6 decimals). The
 *   service counts cents: a payment under one cent is not reported (`below_one_cent`).
 *
 * The input types are the fields this reads of the `x402` package's own `SettleResponse` and
 * `PaymentRequirements` (x402@1.x, `x402/types`), so a resource server passes those objects as
 * they are; the package itself is not a dependency of this client.
 */
import type { TrackerClient } from './client.ts';
import type { Currency, SaleResponse, TrackerResult } from './client-types.ts';

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

export type X402ReportResult =
  | { reported: true; sale: TrackerResult<SaleResponse> }
  | { reported: false; reason: 'not_settled' | 'no_payer' | 'below_one_cent' | 'referral_failed'; error?: string };

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

export async function reportX402Settlement(client: TrackerClient, input: X402ReportInput): Promise<X402ReportResult> {
  const { settlement, requirements } = input;
  if (!settlement.success) return { reported: false, reason: 'not_settled' };
  if (!settlement.payer) return { reported: false, reason: 'no_payer' };
  const amount = x402Cents(requirements.maxAmountRequired, input.assetDecimals ?? 6);
  if (amount < 1) return { reported: false, reason: 'below_one_cent' };
  // EVM addresses are case-insensitive (checksummed or not); Solana's are not.
  const customer = /^0x[0-9a-fA-F]{40}$/.test(settlement.payer) ? settlement.payer.toLowerCase() : settlement.payer;
  if (input.referral) {
    const link = new URL(requirements.resource);
    link.searchParams.set('aff', input.referral);
    const click = await client.trackClick({ affiliateUrl: link.toString(), pageUrl: requirements.resource });
    const clickId = (click.data as { click_id?: string } | undefined)?.click_id;
    if (!click.ok || !clickId) return { reported: false, reason: 'referral_failed', error: click.error };
    const lead = await client.trackLead({ customerExternalId: customer, clickId, eventName: 'x402' });
    if (!lead.ok) return { reported: false, reason: 'referral_failed', error: lead.error };
  }
  const sale = await client.trackSale({
    customerExternalId: customer,
    amount,
    currency: input.currency ?? 'USD',
    invoiceId: settlement.transaction,
    provider: 'x402',
    eventName: 'x402',
    additionalData: { x402_network: settlement.network, x402_resource: requirements.resource },
  });
  return { reported: true, sale };
}
