import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { Program } from '../entities/program.ts';
import { EmailSettings } from '../entities/email-settings.ts';

/** The sender name and reply-to of a program's emails (null: the program's name, no reply-to). */
export type ProgramEmailSettings = { senderName: string | null; replyTo: string | null };

export async function readProgramEmailSettings(deps: CoreDeps, programId: number): Promise<ProgramEmailSettings> {
  if (!(await deps.em.count(Program, { id: programId }))) throw new AppError('not_found', 'No such program');
  const row = await deps.em.findOne(EmailSettings, { program: programId });
  return { senderName: row?.senderName ?? null, replyTo: row?.replyTo ?? null };
}

/** Saves them; emails written from now on use them. @throws AppError `not_found`. */
export async function updateProgramEmailSettings(
  deps: CoreDeps,
  programId: number,
  change: Partial<ProgramEmailSettings>,
): Promise<ProgramEmailSettings> {
  const em = deps.em;
  if (!(await em.count(Program, { id: programId }))) throw new AppError('not_found', 'No such program');
  const row =
    (await em.findOne(EmailSettings, { program: programId })) ??
    em.create(EmailSettings, { program: programId, updatedAt: deps.clock() });
  if (change.senderName !== undefined) row.senderName = change.senderName;
  if (change.replyTo !== undefined) row.replyTo = change.replyTo;
  row.updatedAt = deps.clock();
  await em.flush();
  return { senderName: row.senderName ?? null, replyTo: row.replyTo ?? null };
}
