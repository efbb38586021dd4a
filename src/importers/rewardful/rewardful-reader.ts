import type { ImportReader, ImportRecord, ImportedCommission } from '../../core/imports/import-records.ts';
import type { ReaderOptions } from '../reader-options.ts';
import { listAll, REWARDFUL_API } from './rewardful-api.ts';
import { createRewardfulCsvReader } from './rewardful-csv.ts';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null);
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) ? v : null);
const idOf = (v: unknown): string | null => str(obj(v)?.id);

const STATES = new Set<ImportedCommission['status']>(['pending', 'due', 'paid', 'voided']);

/**
 * Reads a Rewardful account through its REST API: affiliates (their links' tokens as codes, their
 * campaign as group, their PayPal email), referrals that carry a Stripe customer (the customers),
 * commissions with their sale, and paid payouts. Balances are not stated by the API: the import
 * compares with the due commissions. Given `csv` instead, reads Rewardful's import sheet
 * (rewardful-csv.ts): affiliates, their tokens and payout emails, and their customers only.
 */
export function createRewardfulReader(options: ReaderOptions): ImportReader {
  if (options.csv && Object.keys(options.csv).length) {
    if (options.apiKey) throw new Error('Rewardful: give the API secret or the CSV files, not both');
    return createRewardfulCsvReader(options.csv);
  }
  const apiKey = options.apiKey;
  if (!apiKey) throw new Error('Rewardful needs the API secret of the account (Company settings)');
  const baseUrl = options.baseUrl ?? REWARDFUL_API;
  return {
    source: 'rewardful',
    async *records(): AsyncGenerator<ImportRecord> {
      for await (const a of listAll(apiKey, baseUrl, 'affiliates', [], options.fetch)) yield affiliate(a);
      for await (const r of listAll(apiKey, baseUrl, 'referrals', ['affiliate'], options.fetch)) {
        const record = referral(r);
        if (record) yield record;
      }
      for await (const c of listAll(apiKey, baseUrl, 'commissions', ['sale'], options.fetch)) yield commission(c);
      for await (const p of listAll(apiKey, baseUrl, 'payouts', ['affiliate'], options.fetch)) {
        const record = payout(p);
        if (record) yield record;
      }
    },
    async balances() {
      return null;
    },
  };
}

function affiliate(a: Obj): ImportRecord {
  const id = str(a.id);
  if (!id) return { kind: 'problem', of: 'partner', sourceId: null, reason: 'affiliate without an id' };
  const name = [str(a.first_name), str(a.last_name)].filter(Boolean).join(' ') || null;
  const links = Array.isArray(a.links) ? a.links : [];
  return {
    kind: 'partner',
    sourceId: id,
    name,
    email: str(a.email),
    codes: links.map((l) => str(obj(l)?.token)).filter((t): t is string => t !== null),
    group: str(obj(a.campaign)?.name),
    payoutEmail: str(a.paypal_email),
    createdAt: str(a.created_at),
  };
}

/** A referral that converted into a Stripe customer; visitors and leads are not brought. */
function referral(r: Obj): ImportRecord | null {
  const id = str(r.id);
  const stripeCustomer = str(r.stripe_customer_id) ?? str(obj(r.customer)?.id);
  if (!stripeCustomer && r.conversion_state !== 'conversion') return null;
  const partnerSourceId = idOf(r.affiliate);
  if (!id || !partnerSourceId)
    return { kind: 'problem', of: 'customer', sourceId: id, reason: 'referral without an id or an affiliate' };
  return {
    kind: 'customer',
    sourceId: id,
    partnerSourceId,
    providerCustomerId: stripeCustomer,
    customerKey: null,
    email: str(r.email) ?? str(obj(r.customer)?.email),
    createdAt: str(r.created_at),
  };
}

function commission(c: Obj): ImportRecord {
  const id = str(c.id);
  const sale = obj(c.sale);
  const referral = obj(sale?.referral);
  const partnerSourceId = idOf(c.affiliate) ?? idOf(sale?.affiliate) ?? idOf(referral?.affiliate);
  const state = str(c.state) as ImportedCommission['status'] | null;
  const amount = int(c.amount);
  const currency = str(c.currency) ?? str(sale?.currency);
  const bad = (reason: string): ImportRecord => ({ kind: 'problem', of: 'commission', sourceId: id, reason });
  if (!id || !partnerSourceId) return bad('commission without an id or an affiliate');
  if (!state || !STATES.has(state)) return bad(`unknown commission state "${String(c.state)}"`);
  if (amount === null || !currency) return bad('commission without an amount in cents or a currency');
  return {
    kind: 'commission',
    sourceId: id,
    partnerSourceId,
    customerSourceId: str(referral?.id),
    saleSourceId: str(sale?.stripe_charge_id) ?? str(sale?.invoice_id) ?? str(sale?.id),
    currency: currency.toUpperCase(),
    saleAmountMinor: int(sale?.sale_amount_cents),
    amountMinor: amount,
    status: state,
    createdAt: str(c.created_at) ?? new Date(0).toISOString(),
  };
}

/** A paid payout; due and processing ones are still owed, as the due commissions say. */
function payout(p: Obj): ImportRecord | null {
  if (p.state !== 'paid') return null;
  const id = str(p.id);
  const partnerSourceId = idOf(p.affiliate);
  const amount = int(p.amount);
  const currency = str(p.currency);
  if (!id || !partnerSourceId || amount === null || !currency)
    return {
      kind: 'problem',
      of: 'payout',
      sourceId: id,
      reason: 'payout without an id, affiliate, amount or currency',
    };
  return {
    kind: 'payout',
    sourceId: id,
    partnerSourceId,
    currency: currency.toUpperCase(),
    amountMinor: amount,
    paidAt: str(p.paid_at) ?? str(p.created_at) ?? new Date(0).toISOString(),
  };
}
