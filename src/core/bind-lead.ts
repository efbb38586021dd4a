import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { CoreDeps } from './deps.ts';
import type { LeadJob } from './jobs.ts';
import { AppError } from './errors.ts';
import { Click } from './entities/click.ts';
import { Customer, type ICustomer } from './entities/customer.ts';

export type LeadResult = { customerId: number; customerKey: string | null; clickId: string | null; rebound: boolean };

/**
 * Binds the merchant's customer id to a click so later sales attribute by customer key alone.
 * Server mode may rebind a customer to a newer click; browser mode never rebinds a customer that
 * already has a click (a keyless caller must not be able to steal attribution).
 * @throws AppError `invalid_request` when neither key nor click is given, or the click is unknown
 * in this program.
 */
export async function bindLead(deps: CoreDeps, job: LeadJob): Promise<LeadResult> {
  if (!job.customerKey && !job.clickId) {
    throw new AppError('invalid_request', 'customer_key or click_id is required', { fields: ['customer_key', 'click_id'] });
  }
  try {
    return await deps.em.fork().transactional((em) => bind({ ...deps, em }, job));
  } catch (err) {
    // A concurrent lead for the same customer won the insert: run again, it now finds the row.
    if (err instanceof UniqueConstraintViolationException) return deps.em.fork().transactional((em) => bind({ ...deps, em }, job));
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
  let rebound = false;
  if (!customer) {
    customer = em.create(Customer, {
      program: job.programId,
      customerKey: job.customerKey,
      click: click?.id ?? null,
      partner: click?.partner ?? null,
      emailHash: job.emailHash,
      eventName: job.eventName,
      createdAt: new Date(job.receivedAt),
    });
  } else if (click && customer.click !== click.id && !(job.browser && customer.click)) {
    customer.click = click.id;
    customer.partner = click.partner;
    rebound = true;
  }
  if (job.emailHash && !customer.emailHash) customer.emailHash = job.emailHash;
  await em.flush();
  return { customerId: customer.id, customerKey: customer.customerKey ?? null, clickId: customer.click ?? null, rebound };
}
