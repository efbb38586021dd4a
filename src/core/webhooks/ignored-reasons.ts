/**
 * Why a verified provider event became no sale and no refund. Every reason is stored on the
 * inbox row (`status: ignored`, `error: <reason>`), counted per reason in the program status and
 * documented in docs/providers.md (a test holds the three together).
 *
 * `warn`: money or data the merchant probably expected to count (logged at warn);
 * `notify`: the advertiser also gets an `advertiser_unattributed_payment` notification, because a
 * payment was made that no partner will be credited for unless someone acts.
 */
export const IGNORED_REASONS = {
  // Decided while normalising the event (src/providers).
  unhandled_event_type: { level: 'info', notify: false },
  missing_event_object: { level: 'warn', notify: false },
  missing_attributes: { level: 'warn', notify: false },
  missing_amount: { level: 'warn', notify: false },
  zero_amount: { level: 'info', notify: false },
  missing_currency: { level: 'warn', notify: false },
  /** An amount the currency's ISO 4217 minor unit cannot say exactly (docs/currencies.md). */
  unsupported_minor_units: { level: 'warn', notify: false },
  missing_transaction_id: { level: 'warn', notify: false },
  missing_payment_intent: { level: 'warn', notify: false },
  missing_invoice_id: { level: 'warn', notify: false },
  missing_order_id: { level: 'warn', notify: false },
  missing_period: { level: 'warn', notify: false },
  program_mismatch: { level: 'warn', notify: false },
  not_paid: { level: 'info', notify: false },
  not_a_refund: { level: 'info', notify: false },
  not_subscription_invoice: { level: 'info', notify: false },
  refund_not_approved: { level: 'info', notify: false },
  refund_not_succeeded: { level: 'info', notify: false },
  unhandled_billing_reason: { level: 'info', notify: false },
  unhandled_checkout_mode: { level: 'info', notify: false },
  subscription_recorded_by_invoice_paid: { level: 'info', notify: false },
  first_payment_recorded_by_order_created: { level: 'info', notify: false },
  first_payment_recorded_by_checkout: { level: 'info', notify: false },
  first_payment_refund_applied_by_order_refunded: { level: 'info', notify: false },
  not_a_payment_intent: { level: 'info', notify: false },
  no_succeeded_refund: { level: 'info', notify: false },
  missing_dispute_id: { level: 'warn', notify: false },
  missing_transfer_id: { level: 'warn', notify: false },
  dispute_not_won: { level: 'info', notify: false },
  nothing_to_apply: { level: 'info', notify: false },
  webhook_confirmation: { level: 'info', notify: false },
  /** Prefix: `unstorable_<field>: …`, an id or metadata value longer than its column. */
  unstorable: { level: 'warn', notify: false },
  // Decided while running the event's sale or refund (src/core/webhooks/webhook-inbox.ts).
  unsupported_currency: { level: 'warn', notify: true },
  unknown_click_id: { level: 'warn', notify: true },
  unknown_customer: { level: 'warn', notify: false },
  no_tracker_metadata: { level: 'warn', notify: false },
  attribution_window_expired: { level: 'info', notify: false },
  sale_not_recorded: { level: 'info', notify: false },
  unstorable_value: { level: 'warn', notify: false },
  order_not_registered: { level: 'info', notify: false },
} as const satisfies Record<string, { level: 'warn' | 'info'; notify: boolean }>;

export type IgnoredReason = keyof typeof IGNORED_REASONS;

/** The table key of a stored reason (`unstorable_customerKey: longer…` → `unstorable`). */
export function ignoredReasonCode(reason: string): string {
  const code = reason.split(':', 1)[0] ?? reason;
  return code.startsWith('unstorable_') && code !== 'unstorable_value' ? 'unstorable' : code;
}

/** Unknown reasons (another rejection code) are logged at warn: nothing recorded is the exception. */
export function ignoredReasonInfo(reason: string): { level: 'warn' | 'info'; notify: boolean } {
  return (
    (IGNORED_REASONS as Record<string, { level: 'warn' | 'info'; notify: boolean }>)[ignoredReasonCode(reason)] ?? {
      level: 'warn',
      notify: false,
    }
  );
}
