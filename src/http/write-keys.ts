import type { H3Event } from 'h3';
import { apiKeyKey, partnerKey, programKey } from '../read-routing.ts';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The read-routing keys a request that changed data pins to the primary (read-your-writes,
 * read-routing.ts): the program of an admin route (the dashboard's own writes), the signed-in
 * partner, the API key that called. Tracking calls pin their key only, not the program: a busy
 * program's sales would otherwise keep its dashboard off the replica for good. Webhooks pin nothing
 * (no reader waits on them). Empty for a read or a refused request.
 */
export function writeKeys(event: H3Event, status: number): string[] {
  if (READ_METHODS.has(event.req.method) || status >= 400) return [];
  const keys: string[] = [];
  const route = event.context.matchedRoute?.route ?? '';
  const programId = Number(event.context.params?.id);
  if (route.startsWith('/api/v1/admin/programs/:id') && Number.isSafeInteger(programId))
    keys.push(programKey(programId));
  const partnerId = event.context.session?.partnerId;
  if (typeof partnerId === 'number') keys.push(partnerKey(partnerId));
  const apiKey = event.context.apiKey;
  if (apiKey) keys.push(apiKeyKey(apiKey.keyId));
  return keys;
}
