/**
 * Lemon Squeezy's discount redemptions of an order, the only place its code is found: order
 * webhooks carry `discount_total` alone.
 * `GET /v1/discount-redemptions?filter[order_id]=<id>` (JSON:API), each item's `attributes` with
 * `discount_id`, `order_id`, `discount_name`, `discount_code`, `amount`
 * (https://docs.lemonsqueezy.com/api/discount-redemptions).
 */
import { z } from 'zod';
import { RetryableError } from '../../core/shared/errors.ts';
import type { DiscountLookupResult, LookupDiscountCodes } from '../../core/ports.ts';

export const LEMONSQUEEZY_LOOKUP_TIMEOUT_MS = 5_000;

const id = z.union([z.string(), z.number()]).transform(String);
const redemptions = z.object({
  data: z.array(
    z.object({
      attributes: z.object({
        discount_id: id.nullish(),
        order_id: id.nullish(),
        discount_code: z.string().nullish(),
      }),
    }),
  ),
});

/** Statuses that say the key or the order is not valid: asking again would get the same answer. */
const REFUSED = new Set([401, 403, 404]);

/**
 * The lookup against `baseUrl` (https://api.lemonsqueezy.com, or a test's local server).
 * Network errors, timeouts, 429 and 5xx throw `RetryableError` (the webhook job is retried);
 * 401/403/404 answer `refused`; an answer of another shape throws, also retried. The key goes
 * only into the request's Authorization header; errors never include it.
 */
export function createLemonSqueezyDiscountLookup(o: {
  baseUrl: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}): LookupDiscountCodes {
  const doFetch = o.fetch ?? fetch;
  const timeoutMs = o.timeoutMs ?? LEMONSQUEEZY_LOOKUP_TIMEOUT_MS;
  return async (lookup, apiKey): Promise<DiscountLookupResult> => {
    const url = new URL('/v1/discount-redemptions', o.baseUrl);
    url.searchParams.set('filter[order_id]', lookup.orderId);
    let res: Response;
    try {
      res = await doFetch(url, {
        headers: { accept: 'application/vnd.api+json', authorization: `Bearer ${apiKey}` },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      const why = (err as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (err as Error).message;
      throw new RetryableError(`Lemon Squeezy discount lookup of order ${lookup.orderId} failed: ${why}`);
    }
    if (REFUSED.has(res.status)) {
      await res.body?.cancel();
      return { kind: 'refused', status: res.status };
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new RetryableError(`Lemon Squeezy discount lookup of order ${lookup.orderId} answered ${res.status}`);
    }
    const parsed = redemptions.safeParse(await res.json().catch(() => null));
    if (!parsed.success)
      throw new RetryableError(`Lemon Squeezy discount lookup of order ${lookup.orderId}: unexpected answer`);
    const codes: string[] = [];
    for (const { attributes: a } of parsed.data.data) {
      // The filter should return this order's redemptions only; anything else is not trusted.
      if (a.order_id != null && a.order_id !== lookup.orderId) continue;
      if (a.discount_code) codes.push(a.discount_code);
      if (a.discount_id) codes.push(a.discount_id);
    }
    return { kind: 'found', codes: [...new Set(codes)] };
  };
}
