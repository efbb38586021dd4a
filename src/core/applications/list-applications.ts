import type { CoreDeps } from '../deps.ts';
import { PartnerApplication, type ApplicationStatus } from '../entities/partner-application.ts';

/** A program's applications, newest first (the approval queue: `status` pending). */
export async function listApplications(
  deps: CoreDeps,
  programId: number,
  q: { status?: ApplicationStatus; limit: number; before?: number },
) {
  const where = { program: programId, ...(q.status ? { status: q.status } : {}) };
  const [rows, total] = await Promise.all([
    deps.em.find(
      PartnerApplication,
      { ...where, ...(q.before ? { id: { $lt: q.before } } : {}) },
      { orderBy: { id: 'desc' }, limit: q.limit },
    ),
    deps.em.count(PartnerApplication, where),
  ]);
  return { total, applications: rows };
}
