import { asRecord, at, readDiscountCodes } from '../read-payload.ts';

/**
 * The promotion code and coupon ids of Stripe discounts (`discounts`: a list field): a Checkout Session's `discounts[]`
 * (`{ coupon, promotion_code }`), an invoice's expanded `discounts[]` (Discount objects; from API
 * 2025-09-30 the coupon is under `source.coupon`) and the pre-basil invoice's `discount`. An
 * invoice's unexpanded `discounts` are `di_…` ids of this customer's discount only: nothing a
 * partner's code can name, so they are skipped (docs/providers.md, coupon codes).
 */
export function readStripeDiscountCodes(discounts: unknown, legacy?: unknown): string[] {
  return readDiscountCodes(
    ...[...(Array.isArray(discounts) ? discounts : []), legacy].flatMap((d) => {
      const discount = asRecord(d);
      return discount ? [discount.promotion_code, discount.coupon, at(discount, 'source', 'coupon')] : [];
    }),
  );
}
