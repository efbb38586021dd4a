/**
 * Checkout metadata for connected payment providers: one call per provider returning exactly the
 * object to spread into that provider's checkout-creation call, carrying the tracker keys the
 * service reads back from the provider's webhooks (`tracker_customer_key`, `tracker_click_id`,
 * `tracker_visitor_id`, `program_id`). Values are strings, which every provider accepts (Stripe
 * and Dodo metadata take nothing else); empty keys are left out.
 */

export type CheckoutTrackingInput = {
  /** Your own user id, the one sent to `/track/lead` as `customer_key`. */
  customerKey?: string | null;
  /** The `tracker_click_id` cookie (`tracker.getClickId()`). */
  clickId?: string | null;
  /** Optional, reporting only (`tracker.getVisitorId()`). */
  visitorId?: string | null;
  /** The program id: a checkout tagged for another program is ignored by this one. */
  programId?: number | string | null;
};

export type TrackerCheckoutMetadata = {
  tracker_customer_key?: string;
  tracker_click_id?: string;
  tracker_visitor_id?: string;
  program_id?: string;
};

/** `payment` for one-off Checkout Sessions; `subscription` adds `subscription_data.metadata` (renewal invoices). */
export type StripeCheckoutMode = 'payment' | 'subscription';

const text = (value: unknown): string | undefined => {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
};

/** The four keys, strings only. Throws a TypeError without a customer key and a click id. */
export function buildTrackerMetadata(input: CheckoutTrackingInput): TrackerCheckoutMetadata {
  const metadata: TrackerCheckoutMetadata = {};
  const customerKey = text(input.customerKey);
  const clickId = text(input.clickId);
  const visitorId = text(input.visitorId);
  const programId = text(input.programId);
  if (!customerKey && !clickId) throw new TypeError('checkout metadata needs customerKey or clickId (or both)');
  if (customerKey) metadata.tracker_customer_key = customerKey;
  if (clickId) metadata.tracker_click_id = clickId;
  if (visitorId) metadata.tracker_visitor_id = visitorId;
  if (programId) metadata.program_id = programId;
  return metadata;
}

export const checkoutMetadata = {
  /** `stripe.checkout.sessions.create({ ...checkoutMetadata.stripe(keys, 'subscription'), mode: 'subscription', ... })`. */
  stripe(input: CheckoutTrackingInput, mode: StripeCheckoutMode = 'payment') {
    const metadata = buildTrackerMetadata(input);
    // Stripe refuses `subscription_data` outside subscription mode.
    return mode === 'subscription' ? { metadata, subscription_data: { metadata: { ...metadata } } } : { metadata };
  },
  /** `Paddle.Checkout.open({ ...checkoutMetadata.paddle(keys), items })`; Paddle.js calls it `customData`. */
  paddle(input: CheckoutTrackingInput) {
    return { customData: buildTrackerMetadata(input) };
  },
  /** The `attributes` of `POST /v1/checkouts`: `{ ...checkoutMetadata.lemonSqueezy(keys), ... }`. */
  lemonSqueezy(input: CheckoutTrackingInput) {
    return { checkout_data: { custom: buildTrackerMetadata(input) } };
  },
  /** Polar `POST /v1/checkouts/` (`polar.checkouts.create`): `{ ...checkoutMetadata.polar(keys), products }`. */
  polar(input: CheckoutTrackingInput) {
    return { metadata: buildTrackerMetadata(input) };
  },
  /** Dodo checkout sessions and payment/subscription creation: `{ ...checkoutMetadata.dodo(keys), product_cart }`. */
  dodo(input: CheckoutTrackingInput) {
    return { metadata: buildTrackerMetadata(input) };
  },
  /** Creem `POST /v1/checkouts`: `{ ...checkoutMetadata.creem(keys), product_id }`. */
  creem(input: CheckoutTrackingInput) {
    return { metadata: buildTrackerMetadata(input) };
  },
} as const;
