import { DAY_MS, type CoreDeps } from '../deps.ts';
import type { LeadJob } from '../jobs/lead-job.ts';
import { AppError } from '../shared/errors.ts';
import { isUniqueViolation } from '../db/data-error.ts';
import { Click } from '../entities/click.ts';
import { Customer, type ICustomer } from '../entities/customer.ts';
import { findProgramSettings } from '../settings-cache.ts';
import { recordAttributionConflict } from './record-attribution-conflict.ts';
import { EMAIL_HASH_VERSION } from '../shared/email-hash.ts';
import { awardLeadReward } from '../rewards/lead-reward.ts';
import { emitLeadEvents } from '../outbound/use-case-events.ts';

export type LeadResult = {
  customerId: number;
  customerKey: string | null;
  clickId: string | null;
  rebound: boolean;
  /** The reward per lead this binding earned (lead-reward.ts), if any. */
  commissionId: number | null;
  /** Outbound event deliveries it wrote (`lead.created`, `commission.created`), to enqueue after commit. */
  deliveryIds?: number[];
};

/**
 * Binds the merchant's customer id to a click so later sales attribute by customer key alone.
 * - Keyed (server) leads may rebind a customer to a newer click, and replace a provisional binding;
 *   under the program's `first_click` model, only once the bound click is older than the cookie
 *   duration.
 * - Keyless (browser) leads can be sent by anyone, so what they bind is provisional: they never
 *   rebind a customer; a second keyless lead naming another click marks the customer disputed
 *   (its commissions are held for review) and records the conflict for the advertiser; one click
 *   binds at most one customer; a program can turn them off (`browser_leads`).
 * @throws AppError `invalid_request` when neither key nor click is given, the click is unknown in
 * this program, or (browser) the click already binds another customer; `forbidden` when the
 * program does not accept keyless leads.
 */
export async function bindLead(deps: CoreDeps, job: LeadJob): Promise<LeadResult> {
  if (!job.customerKey && !job.clickId) {
    throw new AppError('invalid_request', 'customer_key or click_id is required', {
      fields: ['customer_key', 'click_id'],
    });
  }
  if (job.browser) {
    const program = await findProgramSettings(deps, job.programId);
    if (!program.browserLeads)
      throw new AppError(
        'forbidden',
        'This program does not accept keyless browser leads; report leads from your backend with the program key',
      );
  }
  try {
    return await deps.em.transactional((em) => bind({ ...deps, em }, job));
  } catch (err) {
    // A concurrent lead for the same customer won the insert: run again, it now finds the row.
    if (isUniqueViolation(err)) return deps.em.transactional((em) => bind({ ...deps, em }, job));
    throw err;
  }
}

/** The binding itself, inside the caller's transaction (also used for implicit provider leads). */
export async function bind(deps: CoreDeps, job: LeadJob): Promise<LeadResult> {
  const em = deps.em;
  const click = job.clickId ? await em.findOne(Click, { id: job.clickId, program: job.programId }) : null;
  if (job.clickId && !click) {
    throw new AppError('invalid_request', 'click_id does not match a click of this program', { field: 'click_id' });
  }
  let customer: ICustomer | null = job.customerKey
    ? await em.findOne(Customer, { program: job.programId, customerKey: job.customerKey })
    : await em.findOne(Customer, { program: job.programId, click: job.clickId }, { orderBy: { id: 'desc' } });
  if (
    job.browser &&
    click &&
    (!customer || customer.click !== click.id) &&
    (await em.count(Customer, {
      program: job.programId,
      click: click.id,
      ...(customer ? { id: { $ne: customer.id } } : {}),
    }))
  ) {
    // One click, one customer: a single partner click cannot pre-claim a list of guessed keys.
    throw new AppError('invalid_request', 'This click is already bound to another customer', { field: 'click_id' });
  }
  const now = new Date(job.receivedAt);
  let rebound = false;
  const isNew = !customer;
  if (!customer) {
    customer = em.create(Customer, {
      program: job.programId,
      customerKey: job.customerKey,
      click: click?.id ?? null,
      partner: click?.partner ?? null,
      emailHash: job.emailHash,
      emailHashVersion: job.emailHash ? (job.emailHashVersion ?? EMAIL_HASH_VERSION.sha256) : null,
      emailDisposable: job.emailDisposable,
      eventName: job.eventName,
      provisional: job.browser,
      createdAt: now,
    });
  } else if (click && customer.click !== click.id) {
    if (!job.browser) {
      // Under first click a live bound click keeps the customer with its partner.
      if (!(await firstClickHolds(deps, job.programId, customer, now))) {
        customer.click = click.id;
        customer.partner = click.partner;
        customer.provisional = false;
        customer.disputedAt = null;
        rebound = true;
      }
    } else if (!customer.click) {
      customer.click = click.id;
      customer.partner = click.partner;
      customer.provisional = true;
      rebound = true;
    } else if (customer.provisional) {
      // Two keyless leads, two clicks: someone may have claimed this key first. Keep the first
      // binding, hold its commissions, and let the advertiser decide.
      customer.disputedAt ??= now;
      recordAttributionConflict(deps, {
        programId: job.programId,
        kind: 'lead_click_mismatch',
        customerId: customer.id,
        customerKey: customer.customerKey ?? null,
        boundClickId: customer.click,
        otherClickId: click.id,
        at: now,
      });
    }
  } else if (!job.browser && click && customer.provisional) {
    // The merchant's own keyed lead confirms the binding.
    customer.provisional = false;
  }
  if (job.emailDisposable !== null) customer.emailDisposable = job.emailDisposable;
  // A hash of an older scheme is replaced when the email comes again (the only way to re-hash it).
  const version = job.emailHashVersion ?? EMAIL_HASH_VERSION.sha256;
  if (job.emailHash && (!customer.emailHash || (customer.emailHashVersion ?? EMAIL_HASH_VERSION.sha256) < version)) {
    customer.emailHash = job.emailHash;
    customer.emailHashVersion = version;
  }
  await em.flush();
  const earner = customer.click === click?.id ? click : null;
  const commissionId = await awardLeadReward(deps, customer, earner, now);
  const result = {
    customerId: customer.id,
    customerKey: customer.customerKey ?? null,
    clickId: customer.click ?? null,
    rebound,
    commissionId,
  };
  // `lead.created`: a new customer bound to a partner's click.
  const lead = isNew && customer.partner ? { ...result, partnerId: customer.partner, createdAt: now } : null;
  const deliveryIds = await emitLeadEvents(deps, job.programId, lead, commissionId);
  return deliveryIds.length ? { ...result, deliveryIds } : result;
}

/** Under `first_click`, whether the customer's bound (confirmed) click is younger than the cookie duration. */
async function firstClickHolds(deps: CoreDeps, programId: number, customer: ICustomer, now: Date): Promise<boolean> {
  if (!customer.click || customer.provisional) return false;
  const program = await findProgramSettings(deps, programId);
  if (program.attributionModel !== 'first_click') return false;
  const bound = await deps.em.findOne(Click, { id: customer.click, program: programId }, { fields: ['clickedAt'] });
  return bound !== null && now.getTime() - bound.clickedAt.getTime() <= program.cookieDurationDays * DAY_MS;
}
