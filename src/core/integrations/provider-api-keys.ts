/**
 * A provider connection's API key: what the service needs to call the provider (Lemon Squeezy's
 * discount redemptions, Stripe Connect transfers and invoice payments). Stored sealed
 * (sealed-secrets.ts) with a short hint beside it; it leaves this module only towards the
 * provider's API, never in a response or a log line.
 */
import type { EntityManager } from '@mikro-orm/sql';
import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { SealedSecretError, secretHint } from '../shared/sealed-secrets.ts';
import { ProviderConnection } from '../entities/provider-connection.ts';
import type { WebhookProvider } from '../shared/vocabulary.ts';

/** The providers the service calls with an API key (the others need none yet). */
export const API_KEY_PROVIDERS: readonly WebhookProvider[] = ['lemonsqueezy', 'stripe'];

/** Associated data of the sealed column: a value copied elsewhere does not open. */
export const API_KEY_CONTEXT = 'provider_connection.api_key';

/** What may be shown of a connection's API key. */
export type ApiKeyState = { apiKeySet: boolean; apiKeyHint: string | null };

export function apiKeyState(row: { apiKeySealed?: string | null; apiKeyHint?: string | null }): ApiKeyState {
  return row.apiKeySealed
    ? { apiKeySet: true, apiKeyHint: row.apiKeyHint ?? null }
    : { apiKeySet: false, apiKeyHint: null };
}

/** @throws AppError `invalid_request` for a provider the service never calls. */
export function checkApiKeyProvider(provider: WebhookProvider): void {
  if (!API_KEY_PROVIDERS.includes(provider))
    throw new AppError(
      'invalid_request',
      `An API key is only used for lemonsqueezy (to look up an order's discount code) and stripe (Connect transfers of payout runs, the PaymentIntent of a basil invoice); ${provider} needs none`,
      { field: 'api_key' },
    );
}

/**
 * Sets (a string) or clears (`null`, any provider) the key on a connection row the caller flushes.
 * @throws AppError `invalid_request` for another provider, or when no encryption key is configured.
 */
export function writeApiKey(
  deps: Pick<CoreDeps, 'sealer'>,
  row: { provider: WebhookProvider; apiKeySealed?: string | null; apiKeyHint?: string | null },
  apiKey: string | null,
): void {
  if (apiKey === null) {
    row.apiKeySealed = null;
    row.apiKeyHint = null;
    return;
  }
  checkApiKeyProvider(row.provider);
  if (!deps.sealer?.canSeal)
    throw new AppError(
      'invalid_request',
      `The API key cannot be stored: ${deps.sealer ? 'DATA_ENCRYPTION_KEYS is not set on the server (production mode seals secrets only with a configured key)' : 'no sealer'}`,
      { field: 'api_key' },
    );
  row.apiKeySealed = deps.sealer.seal(apiKey, API_KEY_CONTEXT);
  row.apiKeyHint = secretHint(apiKey);
}

/** Sets or clears the API key of an existing connection. @throws AppError `not_found`, `invalid_request`. */
export async function setProviderApiKey(
  deps: CoreDeps,
  programId: number,
  provider: WebhookProvider,
  apiKey: string | null,
): Promise<ApiKeyState> {
  if (apiKey !== null) checkApiKeyProvider(provider);
  const row = await deps.em.findOne(ProviderConnection, { program: programId, provider });
  if (!row) throw new AppError('not_found', `${provider} is not connected to program ${programId}`);
  writeApiKey(deps, row, apiKey);
  await deps.em.flush();
  deps.log.info({ programId, provider, apiKeySet: apiKey !== null }, 'provider API key updated');
  return apiKeyState(row);
}

/** The connection's key state. @throws AppError `not_found`. */
export async function readApiKeyState(
  em: EntityManager,
  programId: number,
  provider: WebhookProvider,
): Promise<ApiKeyState> {
  const row = await em.findOne(ProviderConnection, { program: programId, provider });
  if (!row) throw new AppError('not_found', `${provider} is not connected to program ${programId}`);
  return apiKeyState(row);
}

/**
 * The connection's API key in clear, for a call to the provider; null when none is set.
 * @throws Error when the key cannot be opened (a missing or wrong DATA_ENCRYPTION_KEYS): the job
 * is retried, so fixing the configuration (or replaying the event) still attributes the sale.
 */
export async function openProviderApiKey(
  deps: Pick<CoreDeps, 'em' | 'sealer'>,
  programId: number,
  provider: WebhookProvider,
): Promise<string | null> {
  const row = await deps.em.findOne(
    ProviderConnection,
    { program: programId, provider },
    { fields: ['apiKeySealed'], disableIdentityMap: true },
  );
  if (!row?.apiKeySealed) return null;
  if (!deps.sealer) throw new Error('no sealer to open the provider API key');
  try {
    return deps.sealer.open(row.apiKeySealed, API_KEY_CONTEXT);
  } catch (err) {
    if (err instanceof SealedSecretError)
      throw new Error(`the ${provider} API key of program ${programId} cannot be opened: ${err.message}`, {
        cause: err,
      });
    throw err;
  }
}
