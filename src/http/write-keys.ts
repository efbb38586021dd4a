import type { H3Event } from 'h3';
import { partnerKey, programKey } from '../read-routing.ts';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The read-routing keys a request that changed data pins to the primary (read-your-writes,
 * read-routing.ts): its API key's program, the program of an admin or webhook route, the signed-in
 * partner. Empty for a read or a refused request.
 */
export function writeKeys(event: H3Event, status: number): string[] {
  if (READ_METHODS.has(event.req.method) || status >= 400) return [];
  const keys: string[] = [];
  const route = event.context.matchedRoute?.route ?? '';
  const params = event.context.params ?? {};
  const programId =
    event.context.apiKey?.programId ??
    (route.startsWith('/api/v1/admin/programs/:id') ? Number(params.id) : undefined) ??
    (route.startsWith('/api/v1/webhooks/') ? Number(params.programId) : undefined);
  if (programId !== undefined && Number.isSafeInteger(programId)) keys.push(programKey(programId));
  const partnerId = event.context.session?.partnerId;
  if (typeof partnerId === 'number') keys.push(partnerKey(partnerId));
  return keys;
}
