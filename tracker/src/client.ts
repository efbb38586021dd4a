/**
 * Server client for the conversion API (spec "Server client"). Runs wherever a WHATWG `fetch`
 * exists (Node 20+, edge runtimes) or one is injected; no Node built-ins. The API key is a server
 * secret: it is sent only as the bearer token of sale, refund, lead and status calls, never with
 * clicks, and never appears in a result.
 */
import type { TrackerClient, TrackerClientOptions, TrackerResult } from './client-types.ts';

export type * from './client-types.ts';
// Checkout metadata travels with the server client: merchants build checkouts on their server.
export { buildTrackerMetadata, checkoutMetadata } from './checkout-metadata.ts';
export type { CheckoutTrackingInput, StripeCheckoutMode, TrackerCheckoutMetadata } from './checkout-metadata.ts';
// x402 resource servers report settled payments through the same client.
export { decodeX402PaymentResponse, reportX402Settlement, x402Cents, x402ReferralOf } from './x402.ts';
export type {
  X402ReportInput,
  X402ReportOptions,
  X402ReportResult,
  X402Requirements,
  X402Settlement,
  X402Unreported,
  X402UnreportedReason,
} from './x402.ts';

/** Placeholder for the hosted API (`{base_url}`); self-hosted merchants pass `apiUrl`. */
export const DEFAULT_API_URL = 'https://tracker.example.com';
const DEFAULT_TIMEOUT_MS = 10_000;

const hasText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

function assertCents(value: unknown, name: string, allowZero: boolean): void {
  if (value === undefined) return;
  if (!Number.isSafeInteger(value) || (value as number) < (allowZero ? 0 : 1)) {
    throw new RangeError(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} integer number of cents`);
  }
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? null : JSON.parse(text);
  } catch {
    return null;
  }
}

/** Reads both envelopes: platform `{ data: null, error: { status, name, message, details, code } }` and typed `{ error: { code, message, ... } }`. */
function describeFailure(
  status: number,
  statusText: string,
  body: unknown,
): { error: string; code: string | undefined; retryAfterSeconds?: number } {
  const err = (body as { error?: unknown } | null)?.error;
  if (!err || typeof err !== 'object')
    return { error: `HTTP ${status}${statusText ? ' ' + statusText : ''}`, code: undefined };
  const { code, message, hint, retry_after_seconds: retryAfter } = err as Record<string, unknown>;
  const label = typeof code === 'string' ? code : `HTTP ${status}`;
  let text = typeof message === 'string' && message !== '' ? `${label}: ${message}` : label;
  if (typeof hint === 'string') text += ` (${hint})`;
  if (typeof retryAfter !== 'number') return { error: text, code: typeof code === 'string' ? code : undefined };
  text += ` (retry after ${retryAfter}s)`;
  return { error: text, code: typeof code === 'string' ? code : undefined, retryAfterSeconds: retryAfter };
}

function describeNetworkError(err: unknown, timeoutMs: number): string {
  if (!(err instanceof Error)) return String(err);
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return `request timed out after ${timeoutMs} ms`;
  const cause = (err as { cause?: unknown }).cause;
  const detail = cause instanceof Error ? cause.message : (cause as { code?: unknown } | undefined)?.code;
  return typeof detail === 'string' && detail !== '' ? `${err.message} (${detail})` : err.message;
}

export function createTrackerClient(options: TrackerClientOptions): TrackerClient {
  if (!hasText(options?.apiKey)) throw new TypeError('createTrackerClient: apiKey is required');
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function')
    throw new TypeError('createTrackerClient: no global fetch; pass the `fetch` option');
  const apiKey = options.apiKey;
  const apiUrl = (options.apiUrl ?? DEFAULT_API_URL).replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  async function send<T>(
    method: 'GET' | 'POST',
    path: string,
    body: object | undefined,
    auth: boolean,
  ): Promise<TrackerResult<T>> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (auth) headers.Authorization = `Bearer ${apiKey}`;
    let res: Response;
    try {
      res = await fetchImpl(apiUrl + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      return { ok: false, status: 0, data: null, error: describeNetworkError(err, timeoutMs), code: undefined };
    }
    const parsed = parseJson(await res.text().catch(() => ''));
    if (res.ok) return { ok: true, status: res.status, data: parsed as T | null, error: undefined, code: undefined };
    return { ok: false, status: res.status, data: null, ...describeFailure(res.status, res.statusText, parsed) };
  }

  return {
    trackLead(input) {
      if (!hasText(input?.customerExternalId) && !hasText(input?.clickId)) {
        throw new TypeError('trackLead: customerExternalId or clickId is required');
      }
      return send(
        'POST',
        '/api/v1/track/lead',
        {
          customer_key: input.customerExternalId,
          click_id: input.clickId,
          email: input.email,
          event_name: input.eventName,
          additional_data: input.additionalData,
        },
        true,
      );
    },

    trackSale(input) {
      if (!hasText(input?.customerExternalId) && !hasText(input?.clickId)) {
        throw new TypeError('trackSale: customerExternalId or clickId is required');
      }
      if (input.amount === undefined) throw new TypeError('trackSale: amount is required');
      assertCents(input.amount, 'trackSale: amount', false);
      if (!hasText(input.invoiceId))
        throw new TypeError('trackSale: invoiceId is required (it is the idempotency key)');
      assertCents(input.taxCents, 'trackSale: taxCents', true);
      return send(
        'POST',
        '/api/v1/track/sale',
        {
          customer_key: input.customerExternalId,
          click_id: input.clickId,
          transaction_id: input.invoiceId,
          amount_cents: input.amount,
          tax_cents: input.taxCents,
          currency: input.currency,
          sale_type: input.saleType,
          is_recurring: input.isRecurring,
          subscription_id: input.subscriptionId,
          subscription_interval: input.subscriptionInterval,
          event_name: input.eventName,
          email: input.email,
          additional_data: input.additionalData,
          provider: input.provider,
          provider_payment_id: input.provider ? input.invoiceId : undefined,
          referral_code: input.referralCode,
          referral_url: input.referralUrl,
        },
        true,
      );
    },

    trackTestSale(input = {}) {
      assertCents(input.amount, 'trackTestSale: amount', false);
      return send(
        'POST',
        '/api/v1/track/sale',
        {
          transaction_id: input.invoiceId,
          amount_cents: input.amount,
          currency: input.currency,
          additional_data: { ...input.additionalData, test_mode: true },
        },
        true,
      );
    },

    trackRefund(input) {
      if (!hasText(input?.invoiceId)) throw new TypeError('trackRefund: invoiceId is required');
      assertCents(input.refundAmountCents, 'trackRefund: refundAmountCents', true);
      return send(
        'POST',
        '/api/v1/track/refund',
        {
          transaction_id: input.invoiceId,
          refund_amount_cents: input.refundAmountCents,
          refund_id: input.refundId,
          refund_reason: input.refundReason,
          reason: input.reason,
        },
        true,
      );
    },

    trackClick(input = {}) {
      return send(
        'POST',
        '/api/v1/track/click',
        {
          affiliate_url: input.affiliateUrl,
          page_url: input.pageUrl,
          referrer_url: input.referrerUrl,
          existing_click_id: input.existingClickId,
          visitor_id: input.visitorId,
        },
        false,
      );
    },

    status() {
      return send('GET', '/api/v1/cli/status', undefined, true);
    },
  };
}
