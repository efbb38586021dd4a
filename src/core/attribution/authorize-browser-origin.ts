import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { Program } from '../entities/program.ts';
import { hostMatchesDomain } from '../shared/host-matches-domain.ts';

const LOCAL = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;

/**
 * Keyless browser calls (tracker `signup`, `trackTest`) name their program in the body; the
 * request's Origin must then match the program's domain. A program without a domain accepts only
 * local origins (development), so a production program must set one.
 * @throws AppError `not_found` (program), `forbidden` (origin).
 */
export async function authorizeBrowserOrigin(
  deps: Pick<CoreDeps, 'em'>,
  programId: number,
  origin: string | null,
): Promise<void> {
  const program = await deps.em.findOne(Program, { id: programId }, { fields: ['domain'] });
  if (!program) throw new AppError('not_found', 'No such program', { field: 'program_id' });
  let host: string | null;
  try {
    host = origin ? new URL(origin).hostname : null;
  } catch {
    host = null;
  }
  const ok = host !== null && (program.domain ? hostMatchesDomain(host, program.domain) : LOCAL.test(host));
  // The domain is the merchant's public site: naming it lets the tracker's debug mode say the fix.
  if (!ok)
    throw new AppError('forbidden', 'Origin does not match the program domain', {
      origin,
      program_domain: program.domain,
    });
}
