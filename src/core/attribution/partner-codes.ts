import { sql } from 'kysely';
import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { isUniqueViolation } from '../db/data-error.ts';
import { Partner } from '../entities/partner.ts';
import { PartnerCode, type IPartnerCode } from '../entities/partner-code.ts';
import { compileStatement } from '../db/sql.ts';

/** A new code of a partner: what the customer types, and the providers' ids of the same discount. */
export type PartnerCodeCreate = { code: string; providerIds?: string[] };

/** Codes match whatever the case the customer typed. */
export function codeKey(code: string): string {
  return code.trim().toUpperCase();
}

/**
 * Gives a partner a coupon code.
 * @throws AppError `not_found` (no such partner in the program), `invalid_request` (the code, or
 * one of its provider ids, already belongs to a code of this program).
 */
export async function createPartnerCode(
  deps: CoreDeps,
  programId: number,
  partnerId: number,
  input: PartnerCodeCreate,
): Promise<IPartnerCode> {
  const em = deps.em;
  if (!(await em.count(Partner, { id: partnerId, program: programId })))
    throw new AppError('not_found', 'No such partner in this program');
  const key = codeKey(input.code);
  const providerIds = [...new Set(input.providerIds ?? [])];
  if (providerIds.length) {
    const taken = await em.findOne(PartnerCode, {
      program: programId,
      disabledAt: null,
      providerIds: { $overlap: providerIds },
    });
    if (taken)
      throw new AppError(
        'invalid_request',
        `A provider id is already used by the code "${taken.code}" of this program`,
        { field: 'provider_ids', code_id: taken.id },
      );
  }
  const code = em.create(PartnerCode, {
    program: programId,
    partner: partnerId,
    code: input.code.trim(),
    codeKey: key,
    providerIds,
  });
  try {
    await em.flush();
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    throw new AppError('invalid_request', `The code "${input.code.trim()}" is taken in this program`, {
      field: 'code',
    });
  }
  deps.log.info({ programId, partnerId, codeId: code.id }, 'partner code created');
  return code;
}

/**
 * Retires a code: sales carrying it are no longer attributed by it (sales it attributed keep
 * their partner). Its text stays taken, so it can never be handed to another partner by mistake.
 * @throws AppError `not_found`.
 */
export async function disablePartnerCode(deps: CoreDeps, programId: number, codeId: number): Promise<IPartnerCode> {
  const em = deps.em;
  const code = await em.findOne(PartnerCode, { id: codeId, program: programId });
  if (!code) throw new AppError('not_found', 'No such code in this program');
  code.disabledAt ??= deps.clock();
  await em.flush();
  return code;
}

/** A partner's codes in use, oldest first (the portal shows them). */
export async function listActiveCodes(deps: CoreDeps, programId: number, partnerId: number): Promise<string[]> {
  const rows = await deps.em.find(
    PartnerCode,
    { program: programId, partner: partnerId, disabledAt: null },
    { fields: ['code'], orderBy: { id: 'asc' } },
  );
  return rows.map((r) => r.code);
}

const CODE_OWNER = compileStatement((db, p: { programId: number; keys: string; ids: string }) =>
  db
    .selectFrom('partner_code')
    .select(['id', 'partner_id'])
    .where('program_id', '=', p.programId)
    .where('disabled_at', 'is', null)
    .where((w) =>
      w.or([sql<boolean>`code_key = any(${p.keys}::text[])`, sql<boolean>`provider_ids && ${p.ids}::text[]`]),
    )
    .orderBy('id')
    .limit(1),
);

/** PostgreSQL's array literal of strings (one parameter, whatever the driver does with arrays). */
function textArray(values: string[]): string {
  return `{${values.map((v) => `"${v.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
}

/**
 * The active code of this program that one of `candidates` names (a code in any case, or a
 * provider's id of the discount), with its partner; the oldest code when several match.
 */
export async function findCodeOwner(
  em: CoreDeps['em'],
  programId: number,
  candidates: string[],
): Promise<{ codeId: number; partnerId: number } | null> {
  const [row] = await CODE_OWNER.run(em, {
    programId,
    keys: textArray(candidates.map(codeKey)),
    ids: textArray(candidates),
  });
  return row ? { codeId: row.id, partnerId: row.partner_id } : null;
}
