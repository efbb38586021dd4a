/**
 * The port through which core asks a provider's API for a sale's discount codes, for providers
 * whose sale payload names none (Lemon Squeezy orders: `discount_total` only). The adapter stays
 * pure: it only marks the sale (`SaleJob.couponLookup`); the implementation lives with the
 * provider (providers/lemonsqueezy/discount-redemptions.ts) and reaches core through `CoreDeps`.
 */
import type { CoreDeps } from '../deps.ts';
import type { CouponLookup } from '../jobs/sale-job.ts';
import { openProviderApiKey } from '../integrations/provider-api-keys.ts';

/**
 * The codes the provider knows for the sale; none when it cannot be asked (no port, no API key on
 * the connection) or refuses. Called only for a sale nothing else attributes (resolve-attribution.ts).
 * @throws RetryableError (from the port) when the provider could not answer.
 */
export async function lookUpCouponCodes(deps: CoreDeps, programId: number, lookup: CouponLookup): Promise<string[]> {
  if (!deps.lookupDiscountCodes) return [];
  const where = { programId, provider: lookup.provider, orderId: lookup.orderId };
  const apiKey = await openProviderApiKey(deps, programId, lookup.provider);
  if (!apiKey) {
    deps.log.info(
      where,
      `discounted sale without a code: set the ${lookup.provider} connection's API key (admin providers:api-key) so its discount code can attribute such sales`,
    );
    return [];
  }
  const result = await deps.lookupDiscountCodes(lookup, apiKey);
  if (result.kind === 'refused') {
    deps.log.warn(
      { ...where, status: result.status },
      `${lookup.provider} refused the discount lookup (check the connection's API key); the sale is treated as carrying no code`,
    );
    return [];
  }
  deps.log.debug({ ...where, found: result.codes.length }, 'discount codes looked up');
  return result.codes;
}
