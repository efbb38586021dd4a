import type { H3Event } from 'h3';
import type { RouteContext } from './http-context.ts';
import { AppError } from '../core/errors.ts';
import { Program, type IProgram } from '../core/entities/program.ts';
import { hostMatchesDomain } from '../core/host-matches-domain.ts';

const LOCAL = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;

/**
 * Keyless browser calls (tracker `signup`, `trackTest`) name their program in the body; the
 * request's Origin must then match the program's domain. A program without a domain accepts only
 * local origins (development), so a production program must set one.
 * @throws AppError `not_found` (program), `forbidden` (origin).
 */
export async function checkBrowserOrigin(ctx: RouteContext, event: H3Event, programId: number): Promise<IProgram> {
  const program = await ctx.db.em.fork().findOne(Program, { id: programId });
  if (!program) throw new AppError('not_found', 'No such program', { field: 'program_id' });
  const origin = event.req.headers.get('origin');
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
  return program;
}

/** CORS for the browser-facing tracking endpoints: any origin may call; no credentials. */
export function corsHeaders(event: H3Event): Record<string, string> {
  const origin = event.req.headers.get('origin');
  if (!origin) return {};
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': 'POST, OPTIONS',
    'access-control-allow-headers': 'content-type, authorization',
    'access-control-max-age': '600',
    vary: 'Origin',
  };
}
