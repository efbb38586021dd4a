/**
 * Fraud holds: rules that hold a new commission from crediting (`held_for_review` with a `hold`
 * record naming each rule that matched and its evidence) until the merchant releases it (credited
 * at once, exactly once) or rejects it (reversed; it was never credited, so no balance moves).
 * Each rule is switched per program (`fraud_rules`); none changes a tracking response.
 */
import { z } from 'zod';
import mailchecker from 'mailchecker';
import type { CoreDeps } from './deps.ts';
import { Customer } from './entities/customer.ts';
import { Partner } from './entities/partner.ts';
import { EMAIL_HASH_VERSION } from './email-hash.ts';

export const fraudRulesSchema = z.strictObject({
  /** The customer's email (its keyed hash) is the partner's own. */
  self_referral: z.boolean().optional(),
  /** The customer's lead email is at a disposable-address domain (a maintained list). */
  disposable_email: z.boolean().optional(),
  /** The sale came less than this many seconds after its click (click farms, scripted checkouts). */
  fast_conversion_seconds: z.number().int().min(1).max(86_400).nullable().optional(),
});
export type FraudRules = z.infer<typeof fraudRulesSchema>;

export const FRAUD_RULES = ['self_referral', 'disposable_email', 'fast_conversion'] as const;
export type FraudRule = (typeof FRAUD_RULES)[number];

/** Why a commission is held: each rule that matched with its evidence; set when released or rejected. */
export type HoldRecord = {
  rules: Array<{ rule: FraudRule; evidence: Record<string, unknown> }>;
  held_at: string;
  released_at?: string;
  rejected_at?: string;
};

/** Whether the address is at a disposable-email domain (the `mailchecker` list, subdomains included). */
export function isDisposableEmail(email: string | null | undefined): boolean | null {
  const at = email?.trim().lastIndexOf('@') ?? -1;
  if (!email || at < 1) return null;
  const domain = email
    .trim()
    .slice(at + 1)
    .toLowerCase();
  const list = mailchecker.blacklist();
  const parts = domain.split('.');
  return parts.some((_, i) => list.has(parts.slice(i).join('.')));
}

/**
 * The rules a new commission matches, or null. `customerId`: the sale's customer (by key or
 * click); `clickAt`: when its click was made (null for renewals and coupon sales).
 */
export async function checkFraud(
  deps: CoreDeps,
  rules: FraudRules | null | undefined,
  sale: { partnerId: number; customerId: number | null; clickAt: Date | null; at: Date },
): Promise<HoldRecord | null> {
  if (!rules) return null;
  const matched: HoldRecord['rules'] = [];
  const customer =
    sale.customerId !== null && (rules.self_referral || rules.disposable_email)
      ? await deps.em.findOne(
          Customer,
          { id: sale.customerId },
          { fields: ['emailHash', 'emailHashVersion', 'emailDisposable'] },
        )
      : null;
  if (rules.self_referral && customer?.emailHash && deps.hashEmail) {
    const partner = await deps.em.findOne(Partner, { id: sale.partnerId }, { fields: ['email'] });
    const version = customer.emailHashVersion ?? EMAIL_HASH_VERSION.sha256;
    if (
      partner?.email &&
      version === EMAIL_HASH_VERSION.hmacSha256 &&
      deps.hashEmail(partner.email) === customer.emailHash
    )
      matched.push({ rule: 'self_referral', evidence: { customer_id: sale.customerId, match: 'email' } });
  }
  if (rules.disposable_email && customer?.emailDisposable)
    matched.push({ rule: 'disposable_email', evidence: { customer_id: sale.customerId } });
  const limit = rules.fast_conversion_seconds;
  if (limit && sale.clickAt) {
    const seconds = (sale.at.getTime() - sale.clickAt.getTime()) / 1000;
    if (seconds < limit)
      matched.push({
        rule: 'fast_conversion',
        evidence: { seconds_after_click: Math.round(seconds), limit_seconds: limit },
      });
  }
  return matched.length ? { rules: matched, held_at: sale.at.toISOString() } : null;
}
