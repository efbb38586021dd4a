/**
 * Fraud holds: rules that hold a new commission from crediting (`held_for_review` with a `hold`
 * record naming each rule that matched and its evidence) until the merchant releases it (credited
 * at once, exactly once) or rejects it (reversed; it was never credited, so no balance moves).
 * Each rule is switched per program (`fraud_rules`); none changes a tracking response.
 */
import mailchecker from 'mailchecker';
import { DAY_MS, type CoreDeps } from '../deps.ts';
import { compileStatement } from '../db/sql.ts';
import { Customer } from '../entities/customer.ts';
import { Partner } from '../entities/partner.ts';
import { EMAIL_HASH_VERSION, emailHashInput } from '../shared/email-hash.ts';
import type { FraudRules, HoldRecord } from '../entities/program-rules.ts';

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
  if (rules.self_referral && customer?.emailHash) {
    const evidence = await selfReferral(deps, sale.partnerId, customer);
    if (evidence) matched.push({ rule: 'self_referral', evidence: { customer_id: sale.customerId, ...evidence } });
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
  if (rules.click_spike) {
    const spike = await clickSpike(deps, rules.click_spike, sale.partnerId, sale.at);
    if (spike) matched.push({ rule: 'click_spike', evidence: spike });
  }
  return matched.length ? { rules: matched, held_at: sale.at.toISOString() } : null;
}

/**
 * The self-referral evidence when the customer's stored email hash is the partner's address hashed
 * by the same scheme, else null: both forms named, the partner's address as entered and the form
 * compared (normalise-email.ts for hashes of version 3; trimmed and lower-cased for version 2, the
 * rows written before normalisation until their customer's next lead re-hashes them). Plain
 * SHA-256 hashes (version 1) are never compared.
 */
async function selfReferral(
  deps: CoreDeps,
  partnerId: number,
  customer: { emailHash?: string | null; emailHashVersion?: number | null },
): Promise<Record<string, unknown> | null> {
  const version = customer.emailHashVersion ?? EMAIL_HASH_VERSION.sha256;
  if (
    !deps.hashEmail ||
    (version !== EMAIL_HASH_VERSION.hmacSha256 && version !== EMAIL_HASH_VERSION.hmacSha256Normalised)
  )
    return null;
  const partner = await deps.em.findOne(Partner, { id: partnerId }, { fields: ['email'] });
  if (!partner?.email || deps.hashEmail(partner.email, version) !== customer.emailHash) return null;
  return { match: 'email', partner_email: partner.email, compared_as: emailHashInput(partner.email, version) };
}

export const BASELINE_DAYS = 30;

const CLICK_COUNTS = compileStatement((db, p: { partnerId: number; since: Date; windowStart: Date; until: Date }) =>
  db
    .selectFrom('click')
    .select((eb) => [
      eb.fn.countAll<string>().filterWhere('clicked_at', '>=', p.windowStart).as('recent'),
      eb.fn.countAll<string>().filterWhere('clicked_at', '<', p.windowStart).as('before'),
    ])
    .where('partner_id', '=', p.partnerId)
    .where('clicked_at', '>=', p.since)
    .where('clicked_at', '<=', p.until),
);

/** The click-rate rule's evidence when the partner's recent clicks spike above their own history, else null. */
async function clickSpike(
  deps: CoreDeps,
  rule: NonNullable<FraudRules['click_spike']>,
  partnerId: number,
  at: Date,
): Promise<Record<string, unknown> | null> {
  const windowHours = rule.window_hours ?? 24;
  const minClicks = rule.min_clicks ?? 100;
  const windowStart = new Date(at.getTime() - windowHours * 3_600_000);
  const since = new Date(windowStart.getTime() - BASELINE_DAYS * DAY_MS);
  const [row] = await CLICK_COUNTS.run(deps.em, { partnerId, since, windowStart, until: at });
  const recent = Number(row?.recent ?? 0);
  // The average clicks per window of this length over the baseline days.
  const baseline = (Number(row?.before ?? 0) * windowHours) / (BASELINE_DAYS * 24);
  if (recent < minClicks || recent <= rule.factor * baseline) return null;
  return {
    recent_clicks: recent,
    window_hours: windowHours,
    baseline_clicks_per_window: Math.round(baseline * 100) / 100,
    factor: rule.factor,
  };
}
