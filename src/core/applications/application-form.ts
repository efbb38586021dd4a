import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { Program } from '../entities/program.ts';
import { ApplicationForm, type ApplicationField } from '../entities/application-form.ts';

/** A program's application form as the admin API and the public page see it. */
export type FormSettings = {
  enabled: boolean;
  intro: string | null;
  fields: ApplicationField[];
  termsText: string | null;
  termsVersion: string | null;
  autoApprove: boolean;
};

const OFF: FormSettings = {
  enabled: false,
  intro: null,
  fields: [],
  termsText: null,
  termsVersion: null,
  autoApprove: false,
};

/** The form with its program's name and domain (the page's branding). @throws AppError `not_found`. */
export async function readApplicationForm(
  deps: CoreDeps,
  programId: number,
): Promise<FormSettings & { programName: string; programDomain: string | null }> {
  const program = await deps.em.findOne(Program, { id: programId });
  if (!program) throw new AppError('not_found', 'No such program');
  const row = await deps.em.findOne(ApplicationForm, { program: programId });
  return {
    ...(row
      ? {
          enabled: row.enabled,
          intro: row.intro ?? null,
          fields: row.fields,
          termsText: row.termsText ?? null,
          termsVersion: row.termsVersion ?? null,
          autoApprove: row.autoApprove,
        }
      : OFF),
    programName: program.name,
    programDomain: program.domain ?? null,
  };
}

/**
 * Saves the form (the settings given). Terms need a version: changing the text without a new
 * version is refused, so every acceptance names the text it accepted.
 * @throws AppError `not_found`, `invalid_request`.
 */
export async function updateApplicationForm(deps: CoreDeps, programId: number, change: Partial<FormSettings>) {
  const em = deps.em;
  const before = await readApplicationForm(deps, programId);
  const given = Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined));
  const next: FormSettings = { ...before, ...given };
  if (next.termsText && !next.termsVersion)
    throw new AppError('invalid_request', 'Terms need a version', { field: 'terms_version' });
  if (
    change.termsText !== undefined &&
    change.termsText !== before.termsText &&
    before.termsVersion &&
    next.termsVersion === before.termsVersion
  )
    throw new AppError('invalid_request', 'Changed terms need a new version', { field: 'terms_version' });
  const keys = next.fields.map((f) => f.key);
  if (new Set(keys).size !== keys.length || keys.some((k) => k === 'name' || k === 'email'))
    throw new AppError('invalid_request', 'Field keys must be unique and not "name" or "email"', { field: 'fields' });
  const row =
    (await em.findOne(ApplicationForm, { program: programId })) ??
    em.create(ApplicationForm, { program: programId, fields: [], updatedAt: deps.clock() });
  Object.assign(row, {
    enabled: next.enabled,
    intro: next.intro,
    fields: next.fields,
    termsText: next.termsText,
    termsVersion: next.termsVersion,
    autoApprove: next.autoApprove,
    updatedAt: deps.clock(),
  });
  await em.flush();
  return readApplicationForm(deps, programId);
}
