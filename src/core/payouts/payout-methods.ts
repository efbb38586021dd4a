/**
 * A partner's payout details: where a payout run sends their money. The details are sealed at
 * rest (sealed-secrets.ts, context `payout_method.details`) and leave this module whole only
 * towards a rail (a batch file, a Stripe transfer); a response shows the kind and a hint.
 */
import { z } from 'zod';
import type { EntityManager } from '@mikro-orm/sql';
import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { SealedSecretError } from '../shared/sealed-secrets.ts';
import { Partner } from '../entities/partner.ts';
import { PayoutMethod, type IPayoutMethod } from '../entities/payout-method.ts';
import type { PayoutMethodKind } from '../shared/vocabulary.ts';

const storedEmail = z.string().trim().toLowerCase().email().max(254);
/**
 * A recipient email as entered: also never starting with `+` or `-` (the email check already
 * refuses `=` and `@` there). Neither rail's users have such mailboxes in practice, and the
 * bank files put the email in a cell a spreadsheet would otherwise run as a formula.
 */
const enteredEmail = storedEmail.refine((e) => !/^[+-]/.test(e), {
  message: 'An email starting with + or - is not accepted (spreadsheets read it as a formula)',
});

const detailsSchema = (email: typeof storedEmail) =>
  z.discriminatedUnion('kind', [
    /** PayPal Payouts: the recipient's PayPal email. */
    z.strictObject({ kind: z.literal('paypal'), email }),
    /**
     * Wise batch payments, "send by email": Wise mails the recipient for their bank details; `name`
     * is the account holder's name as their bank knows it.
     */
    z.strictObject({
      kind: z.literal('wise'),
      name: z.string().trim().min(1).max(140),
      email,
      receiver_type: z.enum(['PERSON', 'INSTITUTION']).default('PERSON'),
    }),
    /** Stripe Connect: the connected account (`acct_...`) transfers go to. */
    z.strictObject({ kind: z.literal('stripe_connect'), account_id: z.string().regex(/^acct_[A-Za-z0-9]{1,255}$/) }),
  ]);

/** The details of each kind, as the partner enters them (snake_case, as on the wire). */
export const payoutMethodSchema = detailsSchema(enteredEmail);
/** The details as stored: rows recorded before a rule of entry was added still open. */
const storedDetailsSchema = detailsSchema(storedEmail);
export type PayoutDetails = z.output<typeof payoutMethodSchema>;

export const PAYOUT_DETAILS_CONTEXT = 'payout_method.details';

/** What a response shows of a partner's payout details. */
export type PayoutMethodState = { kind: PayoutMethodKind; hint: string; updatedAt: Date } | null;

const maskEmail = (e: string) => {
  const at = e.lastIndexOf('@');
  return `${e.slice(0, 1)}…${e.slice(at)}`;
};

function hintOf(d: PayoutDetails): string {
  switch (d.kind) {
    case 'paypal':
      return maskEmail(d.email);
    case 'wise':
      return `${d.name.slice(0, 1)}… (${maskEmail(d.email)})`;
    case 'stripe_connect':
      return `acct_…${d.account_id.slice(-4)}`;
  }
}

const stateOf = (row: IPayoutMethod | null): PayoutMethodState =>
  row ? { kind: row.kind, hint: row.hint, updatedAt: row.updatedAt } : null;

async function partnerOf(em: EntityManager, programId: number, partnerId: number): Promise<void> {
  if (!(await em.count(Partner, { id: partnerId, program: programId })))
    throw new AppError('not_found', 'No such partner in this program');
}

/**
 * Records (replaces) a partner's payout details.
 * @throws AppError `not_found`, `invalid_request` (no encryption key configured).
 */
export async function setPayoutMethod(
  deps: CoreDeps,
  programId: number,
  partnerId: number,
  details: PayoutDetails,
): Promise<PayoutMethodState> {
  await partnerOf(deps.em, programId, partnerId);
  if (!deps.sealer?.canSeal)
    throw new AppError(
      'invalid_request',
      'Payout details cannot be stored: DATA_ENCRYPTION_KEYS is not set on the server',
      { field: 'kind' },
    );
  const sealed = deps.sealer.seal(JSON.stringify(details), PAYOUT_DETAILS_CONTEXT);
  const values = { kind: details.kind, detailsSealed: sealed, hint: hintOf(details), updatedAt: deps.clock() };
  let row = await deps.em.findOne(PayoutMethod, { partner: partnerId });
  if (row) Object.assign(row, values);
  else row = deps.em.create(PayoutMethod, { program: programId, partner: partnerId, ...values });
  await deps.em.flush();
  deps.log.info({ programId, partnerId, kind: details.kind }, 'payout details recorded');
  return stateOf(row);
}

/** Removes a partner's payout details (later runs pass them by). @throws AppError `not_found`. */
export async function removePayoutMethod(deps: CoreDeps, programId: number, partnerId: number): Promise<void> {
  await partnerOf(deps.em, programId, partnerId);
  await deps.em.nativeDelete(PayoutMethod, { partner: partnerId, program: programId });
}

/** @throws AppError `not_found`. */
export async function readPayoutMethod(
  deps: CoreDeps,
  programId: number,
  partnerId: number,
): Promise<PayoutMethodState> {
  await partnerOf(deps.em, programId, partnerId);
  return stateOf(await deps.em.findOne(PayoutMethod, { partner: partnerId, program: programId }));
}

/**
 * The details in clear of the given partners (those that recorded some), for a rail.
 * @throws Error naming the partner when details cannot be opened (a missing key).
 */
export async function openPayoutDetails(
  deps: Pick<CoreDeps, 'em' | 'sealer'>,
  programId: number,
  partnerIds: readonly number[],
): Promise<Map<number, PayoutDetails>> {
  const rows = partnerIds.length
    ? await deps.em.find(
        PayoutMethod,
        { program: programId, partner: { $in: [...partnerIds] } },
        { disableIdentityMap: true },
      )
    : [];
  const out = new Map<number, PayoutDetails>();
  for (const row of rows) {
    try {
      if (!deps.sealer) throw new SealedSecretError('no sealer');
      out.set(
        row.partner,
        storedDetailsSchema.parse(JSON.parse(deps.sealer.open(row.detailsSealed, PAYOUT_DETAILS_CONTEXT))),
      );
    } catch (err) {
      throw new Error(`the payout details of partner ${row.partner} cannot be opened: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }
  return out;
}
