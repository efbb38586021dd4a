import { DAY_MS, type CoreDeps } from '../deps.ts';
import type { SaleJob } from '../jobs/sale-job.ts';
import { buildLeadJob } from '../jobs/lead-job.ts';
import { AppError } from '../shared/errors.ts';
import type { IProgram } from '../entities/program.ts';
import { Sale } from '../entities/sale.ts';
import { Click, type IClick } from '../entities/click.ts';
import { Customer, type ICustomer } from '../entities/customer.ts';
import { bind } from './bind-lead.ts';
import { bindReferral } from './bind-referral.ts';
import { compileStatement, dateFromMs, epochMs } from '../db/sql.ts';
import { findCodeOwner } from './partner-codes.ts';
import { lookUpCouponCodes } from './discount-lookup.ts';
import type { AttributionSource } from '../shared/vocabulary.ts';
import { attributeByImport } from './imported-customer.ts';

export type Attribution =
  | {
      kind: 'attributed';
      customerId: number | null;
      partnerId: number;
      clickId: string | null;
      /** When the sale's click was made (fraud rules' fast conversion); null for renewal, coupon, referral sales. */
      clickAt: Date | null;
      /** A renewal following its subscription: when its first attributed sale was received (record-sale.ts). */
      firstSaleAt: Date | null;
      /** The customer is disputed: its commission is held from automatic approval. */
      held: boolean;
      /** The sale's own click replaced the customer's provisional one (recorded for the advertiser). */
      conflict: {
        customerId: number;
        customerKey: string | null;
        boundClickId: string | null;
        otherClickId: string;
      } | null;
      via: AttributionSource;
      /** The partner's code that attributed the sale (`via` `coupon`). */
      partnerCodeId: number | null;
    }
  | { kind: 'window_expired'; clickAgeDays: number; windowDays: number }
  /**
   * A read-only resolution (`readOnly`) that would have to write: a provider checkout or a referral
   * binding its customer now, or a provisional binding replaced by the sale's own click. The caller
   * resolves again inside a transaction.
   */
  | { kind: 'needs_writes' };

/**
 * Finds who referred a sale, inside the sale's transaction, or (`readOnly`) with reads only, so
 * the common sale needs no transaction of its own (`needs_writes` otherwise).
 * 1. A recurring sale of a subscription already attributed in this program follows that subscription
 *    (no click-window check; the recurring policy is applied by the caller), else the customer's first one.
 * 2. Under the program's coupon precedence `coupon`, a partner's code the sale carries.
 * 3. The customer by `customer_key` first, then by `click_id`; the customer's click gives the
 *    partner (the click's current partner: last-partner attribution) and the age.
 * 4. When that finds no partner, or the click is older than the window: the referral code the
 *    payment came with binds the customer (bind-referral.ts), else a partner's code the sale
 *    carries (`couponCodes`), else one its provider names when asked (`couponLookup`: an API call,
 *    made only here), else an imported customer's partner; otherwise `no_attribution` (saying why a referral bound nothing) or `window_expired`.
 * @throws AppError `no_attribution` when neither a customer, click and partner nor a code is found in this program.
 */
export async function resolveAttribution(
  deps: CoreDeps,
  program: IProgram,
  job: SaleJob,
  now: Date,
  o: { readOnly?: boolean } = {},
): Promise<Attribution> {
  const renewal = await followSubscription(deps, program, job);
  if (renewal) return renewal;
  const codes = job.couponCodes?.length ? job.couponCodes : null;
  const byCode = async () => (codes ? attributeByCode(deps, program.id, codes) : null);
  const byLookup = async () => {
    const found = job.couponLookup ? await lookUpCouponCodes(deps, program.id, job.couponLookup) : [];
    return found.length ? attributeByCode(deps, program.id, found) : null;
  };
  const byImport = () => attributeByImport(deps, program.id, job.providerCustomerId);
  if (program.couponPrecedence === 'coupon') {
    const coupon = await byCode();
    if (coupon) return coupon;
  }
  const byClick = await attributeByClick(deps, program, job, now, o);
  const unbound = byClick.kind === 'unattributed' || byClick.kind === 'window_expired';
  const referral = unbound ? await bindReferral(deps, program.id, job, o) : null;
  if (referral && referral.kind !== 'not_referred') return referral;
  if (byClick.kind === 'unattributed') {
    const coupon = (await byCode()) ?? (await byLookup()) ?? (await byImport());
    if (coupon) return coupon;
    if (!referral) throw new AppError('no_attribution', byClick.message, byClick.details);
    const details = { ...byClick.details, referral_code: job.referralCode, referral: referral.reason };
    throw new AppError('no_attribution', `${byClick.message}; ${referral.reason}`, details);
  }
  if (byClick.kind === 'window_expired') return (await byCode()) ?? (await byLookup()) ?? (await byImport()) ?? byClick;
  return byClick;
}

/** Step 1 of `resolveAttribution`: a renewal follows its subscription's (or customer's) first attributed sale. */
async function followSubscription(deps: CoreDeps, program: IProgram, job: SaleJob): Promise<Attribution | null> {
  if (!job.isRecurring || !job.subscriptionId) return null;
  const em = deps.em;
  let first = await em.findOne(
    Sale,
    { program: program.id, subscriptionId: job.subscriptionId, partner: { $ne: null } },
    { orderBy: { id: 'asc' } },
  );
  if (!first && job.customerKey) {
    // A renewal of a subscription whose first payment was recorded without its subscription id
    // (Lemon Squeezy orders name none): follow the customer's first attributed sale instead.
    const customer = await em.findOne(
      Customer,
      { program: program.id, customerKey: job.customerKey },
      { fields: ['id'] },
    );
    if (customer)
      first = await em.findOne(
        Sale,
        { program: program.id, customer: customer.id, partner: { $ne: null } },
        { orderBy: { id: 'asc' } },
      );
  }
  if (first?.partner) {
    return {
      kind: 'attributed',
      customerId: first.customer ?? null,
      partnerId: first.partner,
      clickId: first.clickId ?? null,
      clickAt: null,
      firstSaleAt: first.receivedAt,
      held: false,
      conflict: null,
      via: 'subscription',
      partnerCodeId: null,
    };
  }
  return null;
}

/** A sale the customer's click does not attribute: why, for `no_attribution` (unless a code does). */
type Unattributed = { kind: 'unattributed'; message: string; details: Record<string, unknown> };

/** Step 3 of `resolveAttribution`: the customer (by key, else by click) and its click. */
async function attributeByClick(
  deps: CoreDeps,
  program: IProgram,
  job: SaleJob,
  now: Date,
  o: { readOnly?: boolean },
): Promise<Attribution | Unattributed> {
  const em = deps.em;
  let customer: Pick<ICustomer, 'id' | 'click' | 'customerKey' | 'provisional' | 'disputedAt'> | null = null;
  // Looked up with the customer when found by key (the common path); otherwise below.
  let click: Pick<IClick, 'id' | 'partner' | 'clickedAt'> | null | undefined;
  let via: 'customer_key' | 'click' = 'customer_key';
  if (job.customerKey) ({ customer, click } = await findCustomerByKey(em, program.id, job.customerKey));
  if (
    !customer &&
    job.origin === 'provider' &&
    job.clickId &&
    (await em.count(Click, { id: job.clickId, program: program.id }))
  ) {
    // Provider checkout that skipped lead tracking: bind the customer to the click now.
    if (o.readOnly) return { kind: 'needs_writes' };
    const lead = await bind(
      deps,
      buildLeadJob({
        programId: program.id,
        customerKey: job.customerKey,
        clickId: job.clickId,
        eventName: 'checkout',
        receivedAt: job.receivedAt,
      }),
    );
    customer = await em.findOne(Customer, { id: lead.customerId });
  }
  if (!customer && job.clickId) {
    via = 'click';
    customer = await em.findOne(Customer, { program: program.id, click: job.clickId }, { orderBy: { id: 'desc' } });
  }
  if (!customer)
    return {
      kind: 'unattributed',
      message: 'Neither customer_key nor click_id matched a customer of this program',
      details: { customer_key: job.customerKey, click_id: job.clickId },
    };
  let conflict: Extract<Attribution, { kind: 'attributed' }>['conflict'] = null;
  let held = customer.disputedAt != null;
  if (customer.provisional && job.clickId && job.clickId !== customer.click) {
    // A keyless lead's binding is only provisional: the merchant's sale naming the buyer's own
    // click wins, the customer is bound to it, and the advertiser sees the conflict.
    const own = await em.findOne(Click, { id: job.clickId, program: program.id });
    if (own) {
      if (o.readOnly) return { kind: 'needs_writes' };
      conflict = {
        customerId: customer.id,
        customerKey: customer.customerKey ?? null,
        boundClickId: customer.click ?? null,
        otherClickId: own.id,
      };
      await em.nativeUpdate(
        Customer,
        { id: customer.id },
        { click: own.id, partner: own.partner, provisional: false, disputedAt: null },
      );
      click = own;
      held = false;
    }
  }
  click ??= customer.click ? await em.findOne(Click, { id: customer.click, program: program.id }) : null;
  if (!click)
    return {
      kind: 'unattributed',
      message: 'The customer has no partner relationship',
      details: { customer_key: customer.customerKey },
    };

  const ageMs = now.getTime() - click.clickedAt.getTime();
  const windowDays = program.attributionWindowDays;
  if (ageMs > windowDays * DAY_MS) {
    return { kind: 'window_expired', clickAgeDays: Math.floor(ageMs / DAY_MS), windowDays };
  }
  return {
    kind: 'attributed',
    customerId: customer.id,
    partnerId: click.partner,
    clickId: click.id,
    clickAt: click.clickedAt,
    firstSaleAt: null,
    held,
    conflict,
    via,
    partnerCodeId: null,
  };
}

/** Steps 2 and 4 of `resolveAttribution`: the partner whose active code the sale carries. */
async function attributeByCode(deps: CoreDeps, programId: number, codes: string[]): Promise<Attribution | null> {
  const owner = await findCodeOwner(deps.em, programId, codes);
  if (!owner) return null;
  // A code names a partner, not a customer: the sale is the code's (and its subscription's
  // renewals follow it, step 1); a later sale of the same customer without the code is not.
  return {
    kind: 'attributed',
    customerId: null,
    partnerId: owner.partnerId,
    clickId: null,
    clickAt: null,
    firstSaleAt: null,
    held: false,
    conflict: null,
    via: 'coupon',
    partnerCodeId: owner.codeId,
  };
}

const CUSTOMER_BY_KEY = compileStatement((db, p: { programId: number; customerKey: string }) =>
  db
    .selectFrom('customer as c')
    .leftJoin('click as k', (join) => join.onRef('k.id', '=', 'c.click_id').onRef('k.program_id', '=', 'c.program_id'))
    .select((eb) => [
      'c.id',
      'c.click_id',
      'k.partner_id',
      epochMs(eb.ref('k.clicked_at')).as('clicked_ms'),
      'c.provisional',
      eb('c.disputed_at', 'is not', null).as('disputed'),
    ])
    .where('c.program_id', '=', p.programId)
    .where('c.customer_key', '=', p.customerKey),
);

/**
 * The customer of a `customer_key` in this program and its click (when the click is of this
 * program), in one statement: every keyed sale makes this lookup, and as two ORM queries it was a
 * quarter of a sale's service time (`npm run bench`).
 */
async function findCustomerByKey(
  em: CoreDeps['em'],
  programId: number,
  customerKey: string,
): Promise<{
  customer: Pick<ICustomer, 'id' | 'click' | 'customerKey' | 'provisional' | 'disputedAt'> | null;
  click: Pick<IClick, 'id' | 'partner' | 'clickedAt'> | null | undefined;
}> {
  const [row] = await CUSTOMER_BY_KEY.run(em, { programId, customerKey });
  if (!row) return { customer: null, click: undefined };
  const click =
    row.click_id !== null && row.partner_id !== null && row.clicked_ms !== null
      ? { id: row.click_id, partner: row.partner_id, clickedAt: dateFromMs(row.clicked_ms)! }
      : null;
  return {
    customer: {
      id: row.id,
      click: row.click_id,
      customerKey,
      provisional: row.provisional,
      disputedAt: row.disputed ? new Date(0) : null,
    },
    click,
  };
}
