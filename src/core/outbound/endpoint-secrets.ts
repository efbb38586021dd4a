/**
 * An event endpoint's signing secrets at rest: sealed (sealed-secrets.ts) in `event_endpoint.secret`
 * and `event_endpoint.previous_secret`, opened only to sign a delivery. The service needs them in
 * clear to sign, so they are sealed rather than hashed: a copy of the database alone does not let
 * anyone sign events an endpoint would accept.
 *
 * Rows written before sealing hold the plaintext `whsec_…` form. Those still sign (`openEndpointSecret`
 * recognises the prefix, which a sealed `v1:…` value never has) until `secrets:reseal` seals them.
 */
import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { SealedSecretError, type Sealer } from '../shared/sealed-secrets.ts';

/** Associated data of both columns: a rotation moves the sealed value from one to the other as is. */
export const ENDPOINT_SECRET_CONTEXT = 'event_endpoint.secret';

/** Whether a stored value is a plaintext secret from before sealing (docs/outbound-events.md). */
export function isPlaintextSecret(stored: string): boolean {
  return stored.startsWith('whsec_');
}

/**
 * The value to store for a new secret.
 * @throws AppError `invalid_request` when no encryption key is configured (production mode without
 * DATA_ENCRYPTION_KEYS): a secret is never stored in clear.
 */
export function sealEndpointSecret(deps: Pick<CoreDeps, 'sealer'>, secret: string): string {
  if (!deps.sealer?.canSeal)
    throw new AppError(
      'invalid_request',
      'The signing secret cannot be stored: DATA_ENCRYPTION_KEYS is not set on the server ' +
        '(production mode seals secrets only with a configured key)',
    );
  return deps.sealer.seal(secret, ENDPOINT_SECRET_CONTEXT);
}

/**
 * A stored value as it must be kept: sealed as it is, a plaintext one sealed now (when a key is
 * configured; else left for `secrets:reseal`).
 */
export function sealIfPlaintext(deps: Pick<CoreDeps, 'sealer'>, stored: string): string {
  return isPlaintextSecret(stored) && deps.sealer?.canSeal ? sealEndpointSecret(deps, stored) : stored;
}

/**
 * The secret in clear, to sign with. A plaintext value (from before sealing) is taken as it is.
 * @throws Error naming the endpoint (never the value) when it cannot be opened: a missing or wrong
 * DATA_ENCRYPTION_KEYS. The delivery job is retried, so fixing the configuration still delivers.
 */
export function openEndpointSecret(sealer: Sealer | undefined, endpointId: number, stored: string): string {
  if (isPlaintextSecret(stored)) return stored;
  try {
    if (!sealer) throw new SealedSecretError('no sealer is configured');
    return sealer.open(stored, ENDPOINT_SECRET_CONTEXT);
  } catch (err) {
    if (err instanceof SealedSecretError)
      throw new Error(`the signing secret of event endpoint ${endpointId} cannot be opened: ${err.message}`, {
        cause: err,
      });
    throw err;
  }
}
