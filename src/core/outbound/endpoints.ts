import { randomBytes } from 'node:crypto';
import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { Program } from '../entities/program.ts';
import { EventEndpoint, type IEventEndpoint } from '../entities/event-endpoint.ts';
import type { OutboundEventType } from '../shared/vocabulary.ts';
import { newSigningSecret } from './sign-event.ts';
import { sealEndpointSecret, sealIfPlaintext } from './endpoint-secrets.ts';
import { OutboundTargetRefused } from './outbound-target.ts';

/**
 * An endpoint URL is `https://` (plain `http://` only to a host on `OUTBOUND_ALLOW_HOSTS`), without
 * credentials, and its host must not be or resolve to a non-public address (the URL guard,
 * outbound-target.ts); every delivery checks again. Any other URL the service is given to call
 * (an importer's `base_url`) is checked the same way, under its own `field` name.
 * @throws AppError `invalid_request` (not an http(s) URL, credentials) or `url_not_allowed`
 * (refused by the guard), both naming the field (`url` unless told).
 */
export async function checkEndpointUrl(
  deps: Pick<CoreDeps, 'checkOutboundUrl'>,
  url: string,
  field = 'url',
): Promise<string> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new AppError('invalid_request', `${field} is not a valid URL`, { field });
  }
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.username || u.password)
    throw new AppError('invalid_request', `${field} must be an https:// URL without credentials`, { field });
  try {
    await deps.checkOutboundUrl(u);
  } catch (err) {
    if (!(err instanceof OutboundTargetRefused)) throw err;
    throw new AppError('url_not_allowed', `${field} is refused: ${err.reason}`, { field, reason: err.reason });
  }
  return u.toString();
}

export type EndpointInput = { url: string; eventTypes: OutboundEventType[] | null; enabled: boolean };

async function findEndpoint(deps: CoreDeps, programId: number, endpointId: number): Promise<IEventEndpoint> {
  const e = await deps.em.findOne(EventEndpoint, { id: endpointId, program: programId });
  if (!e) throw new AppError('not_found', 'No such event endpoint in this program');
  return e;
}

/** Saves and forgets the program's cached subscriptions in this process (others: within the cache's lifetime). */
async function save(deps: CoreDeps, e: IEventEndpoint): Promise<void> {
  await deps.em.flush();
  deps.caches.eventEndpoints.delete(e.program);
}

/**
 * Creates an endpoint with a fresh secret, stored sealed; the secret is in the result once and never again.
 * @throws AppError `not_found`; `invalid_request` (a bad url, or no encryption key to seal the secret);
 * `url_not_allowed` (checkEndpointUrl).
 */
export async function createEventEndpoint(
  deps: CoreDeps,
  programId: number,
  input: EndpointInput,
): Promise<{ endpoint: IEventEndpoint; secret: string }> {
  if (!(await deps.em.count(Program, { id: programId }))) throw new AppError('not_found', 'No such program');
  const url = await checkEndpointUrl(deps, input.url);
  const now = deps.clock();
  const secret = newSigningSecret(randomBytes);
  const endpoint = deps.em.create(EventEndpoint, {
    program: programId,
    url,
    eventTypes: input.eventTypes,
    enabled: input.enabled,
    secret: sealEndpointSecret(deps, secret),
    previousSecret: null,
    createdAt: now,
    updatedAt: now,
  });
  await save(deps, endpoint);
  deps.log.info({ programId, endpointId: endpoint.id, types: input.eventTypes ?? 'all' }, 'event endpoint created');
  return { endpoint, secret };
}

export async function listEventEndpoints(deps: CoreDeps, programId: number): Promise<IEventEndpoint[]> {
  return deps.em.find(EventEndpoint, { program: programId }, { orderBy: { id: 'asc' } });
}

/**
 * Changes url, types or enabled; enabling clears an automatic disable and its run of failures.
 * @throws AppError `not_found`; `invalid_request` or `url_not_allowed` (checkEndpointUrl).
 */
export async function updateEventEndpoint(
  deps: CoreDeps,
  programId: number,
  endpointId: number,
  patch: Partial<EndpointInput>,
): Promise<IEventEndpoint> {
  const e = await findEndpoint(deps, programId, endpointId);
  if (patch.url !== undefined) e.url = await checkEndpointUrl(deps, patch.url);
  if (patch.eventTypes !== undefined) e.eventTypes = patch.eventTypes;
  if (patch.enabled !== undefined) {
    e.enabled = patch.enabled;
    if (patch.enabled) {
      e.disabledAt = null;
      e.consecutiveFailures = 0;
    }
  }
  e.updatedAt = deps.clock();
  await save(deps, e);
  deps.log.info({ programId, endpointId, fields: Object.keys(patch) }, 'event endpoint updated');
  return e;
}

/**
 * Starts a rotation: a new secret signs beside the current one (both `v1,` signatures in every
 * delivery) until `expireOldEventSecret`. Returns the new secret, once.
 * @throws AppError `invalid_request` while a previous secret is still active (expire it first).
 */
export async function rotateEventSecret(
  deps: CoreDeps,
  programId: number,
  endpointId: number,
): Promise<{ endpoint: IEventEndpoint; secret: string }> {
  const e = await findEndpoint(deps, programId, endpointId);
  if (e.previousSecret)
    throw new AppError('invalid_request', 'A rotation is already under way: expire the old secret first', {
      field: 'endpoint_id',
    });
  const secret = newSigningSecret(randomBytes);
  const sealed = sealEndpointSecret(deps, secret);
  // A plaintext secret from before sealing is sealed as it becomes the old one.
  e.previousSecret = sealIfPlaintext(deps, e.secret);
  e.secret = sealed;
  e.updatedAt = deps.clock();
  await save(deps, e);
  deps.log.info(
    { programId, endpointId },
    'event endpoint secret rotated; both secrets sign until the old one is expired',
  );
  return { endpoint: e, secret };
}

/** Ends a rotation: only the newest secret signs from now on (a no-op when none is pending). */
export async function expireOldEventSecret(
  deps: CoreDeps,
  programId: number,
  endpointId: number,
): Promise<IEventEndpoint> {
  const e = await findEndpoint(deps, programId, endpointId);
  e.previousSecret = null;
  e.updatedAt = deps.clock();
  await save(deps, e);
  deps.log.info({ programId, endpointId }, 'event endpoint old secret expired');
  return e;
}
