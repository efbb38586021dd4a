import { randomBytes } from 'node:crypto';
import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { Partner } from '../entities/partner.ts';
import { PartnerCode } from '../entities/partner-code.ts';
import { PartnerGroup } from '../entities/partner-group.ts';
import { Customer } from '../entities/customer.ts';
import { createPartner } from '../programs/programs.ts';
import { codeKey, createPartnerCode } from '../attribution/partner-codes.ts';
import { createPartnerGroup } from '../rewards/partner-groups.ts';
import { setPayoutMethod } from '../payouts/payout-methods.ts';
import type { ImportedCustomer, ImportedPartner } from './import-records.ts';
import { mappedRow, mapRow, type ImportScope } from './source-rows.ts';

/** What applying one record did: created its rows (or found them made), and what it could not take. */
export type Applied = { created: boolean; problems: string[] };

export const SKIPPED: Applied = { created: false, problems: [] };
export const problem = (reason: string): Applied => ({ created: false, problems: [reason] });

/**
 * A partner, in the caller's transaction: its group (found or created by name), its codes as
 * partner codes (the first free one also as its link code), its payout email as PayPal details.
 * A code another partner of the program holds is reported and left out; the partner is still made.
 */
export async function applyPartner(deps: CoreDeps, s: ImportScope, r: ImportedPartner): Promise<Applied> {
  const em = deps.em;
  if (await mappedRow(em, s, 'partner', r.sourceId)) return SKIPPED;
  if (!r.email) return problem('missing email: the partner was not created');
  const problems: string[] = [];
  const codes: string[] = [];
  for (const raw of r.codes) {
    const code = raw.trim();
    if (!code || codes.some((c) => codeKey(c) === codeKey(code))) continue;
    const taken =
      (await em.count(PartnerCode, { program: s.programId, codeKey: codeKey(code) })) ||
      (await em.count(Partner, { program: s.programId, code }));
    if (taken) problems.push(`code "${code}" belongs to another partner of this program: not brought`);
    else codes.push(code);
  }
  let linkCode: string | null = null;
  for (const code of codes) {
    if (/^[A-Za-z0-9_-]{2,64}$/.test(code) && !(await em.count(Partner, { code }))) {
      linkCode = code;
      break;
    }
  }
  linkCode ??= `imp-${randomBytes(5).toString('hex')}`;
  const { partner } = await createPartner(deps, s.programId, {
    code: linkCode,
    name: r.name?.trim() || r.email,
    email: r.email,
  });
  if (r.group) {
    const group =
      (await em.findOne(PartnerGroup, { program: s.programId, name: r.group })) ??
      (await createPartnerGroup(deps, s.programId, { name: r.group, rewardRules: null }));
    partner.group = group.id;
    await em.flush();
    deps.caches.rewardTerms.clear();
  }
  for (const code of codes) await createPartnerCode(deps, s.programId, partner.id, { code });
  if (r.payoutEmail) {
    try {
      await setPayoutMethod(deps, s.programId, partner.id, { kind: 'paypal', email: r.payoutEmail.toLowerCase() });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      problems.push(`payout email not kept: ${err.message}`);
    }
  }
  await mapRow(em, s, 'partner', r.sourceId, partner.id);
  return { created: true, problems };
}

/** A referred customer bound to its imported partner (and to the provider's customer id, for later payments). */
export async function applyCustomer(deps: CoreDeps, s: ImportScope, r: ImportedCustomer): Promise<Applied> {
  const em = deps.em;
  if (await mappedRow(em, s, 'customer', r.sourceId)) return SKIPPED;
  const partnerId = await mappedRow(em, s, 'partner', r.partnerSourceId);
  if (!partnerId) return problem(`unknown partner ${r.partnerSourceId}: the customer was not bound`);
  if (r.customerKey && (await em.count(Customer, { program: s.programId, customerKey: r.customerKey })))
    return problem(`customer_key "${r.customerKey}" is already a customer of this program`);
  if (
    r.providerCustomerId &&
    (await em.count(Customer, { program: s.programId, providerCustomerId: r.providerCustomerId }))
  )
    return problem(`provider customer ${r.providerCustomerId} is already bound in this program`);
  const customer = em.create(Customer, {
    program: s.programId,
    customerKey: r.customerKey,
    click: null,
    partner: partnerId,
    emailHash: null,
    emailHashVersion: null,
    emailDisposable: null,
    eventName: 'import',
    providerCustomerId: r.providerCustomerId,
    createdAt: r.createdAt ? new Date(r.createdAt) : s.now,
  });
  await em.flush();
  await mapRow(em, s, 'customer', r.sourceId, customer.id);
  return { created: true, problems: [] };
}
