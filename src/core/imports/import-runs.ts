import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { ImportRun, type IImportRun } from '../entities/import-run.ts';

/** A program's import runs, newest first (the reports' problems and balances included). */
export async function listImportRuns(deps: CoreDeps, programId: number, limit = 100): Promise<IImportRun[]> {
  return deps.em.find(ImportRun, { program: programId }, { orderBy: { id: 'desc' }, limit });
}

/** One import run and its report. @throws AppError `not_found`. */
export async function getImportRun(deps: CoreDeps, programId: number, runId: number): Promise<IImportRun> {
  const run = await deps.em.findOne(ImportRun, { id: runId, program: programId });
  if (!run) throw new AppError('not_found', 'No such import in this program');
  return run;
}
