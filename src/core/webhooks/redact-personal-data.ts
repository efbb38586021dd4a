/**
 * Removes buyer personal data from a provider's raw webhook payload, keeping its shape, ids,
 * amounts, statuses and tracker metadata (what an operator needs to understand an old event).
 *
 * Rules, the same for every provider (the providers' own field names, see docs/providers.md):
 * - a value under a personal key (PERSONAL_KEYS: names, emails, phones, addresses, tax ids, IP
 *   addresses, card holder and card digits, receipt and invoice links) becomes `"[redacted]"`,
 *   whatever it is (an address object goes whole);
 * - inside a personal container (PERSONAL_CONTAINERS: the buyer's `customer`, billing and shipping
 *   details), every string is redacted except ids (`id`, `*_id`) and `object` (so the buyer's
 *   `name` there goes, while a product's or a price's `name` elsewhere stays);
 * - any other string that contains an email address is redacted (free-text fields, metadata).
 * `null`, `false` and empty values stay, so the payload still says what was absent.
 */
export const REDACTED = '[redacted]';

const PERSONAL_KEYS = new Set([
  'first_name',
  'last_name',
  'full_name',
  'email',
  'email_address',
  'phone',
  'phone_number',
  'address',
  'line1',
  'line2',
  'street',
  'street_address',
  'postal_code',
  'zip',
  'zipcode',
  'zip_code',
  'customer_name',
  'customer_email',
  'customer_email_address',
  'customer_phone',
  'customer_address',
  'customer_shipping',
  'customer_tax_ids',
  'customer_tax_exempt',
  'receipt_email',
  'user_name',
  'user_email',
  'billing_name',
  'billing_address',
  'shipping_address',
  'shipping_name',
  'cardholder_name',
  'card_last_four',
  'last4',
  'last_four',
  'dynamic_last4',
  'fingerprint',
  'tax_id',
  'tax_ids',
  'vat_number',
  'ip_address',
  'customer_ip',
  'customer_purchase_ip',
  'client_ip',
  'receipt_url',
  'receipt',
  'invoice_url',
  'hosted_invoice_url',
  'invoice_pdf',
  'customer_portal',
  'update_payment_method',
  // PayOS: the payer's bank account (`data.counterAccountName`, `counterAccountNumber`); keys are compared lower-cased.
  'counteraccountname',
  'counteraccountnumber',
  'virtualaccountname',
]);

const PERSONAL_CONTAINERS = new Set([
  'customer',
  'customer_details',
  'billing',
  'billing_details',
  'shipping',
  'shipping_details',
  'owner',
  'user',
  'buyer',
]);

const EMAIL = /[^\s@"<>]+@[^\s@"<>]+\.[^\s@"<>]+/;

/** A copy of `payload` without buyer personal data (the input is not changed). */
export function redactPersonalData(payload: unknown): unknown {
  return walk(payload, false);
}

function walk(value: unknown, inPersonalContainer: boolean): unknown {
  if (typeof value === 'string') return EMAIL.test(value) ? REDACTED : value;
  if (Array.isArray(value)) return value.map((item) => walk(item, inPersonalContainer));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const lower = key.toLowerCase();
    if (isEmpty(child)) out[key] = child;
    else if (inPersonalContainer && typeof child === 'string' && !isIdKey(lower)) out[key] = REDACTED;
    else if (PERSONAL_KEYS.has(lower)) out[key] = REDACTED;
    else out[key] = walk(child, inPersonalContainer || PERSONAL_CONTAINERS.has(lower));
  }
  return out;
}

function isIdKey(key: string): boolean {
  return key === 'id' || key.endsWith('_id') || key === 'object';
}

function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || value === false || value === '';
}
