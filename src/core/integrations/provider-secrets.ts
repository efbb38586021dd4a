/**
 * Provider connections and their signing secrets (admin API and CLI). A connection holds several
 * secrets, each labelled `live` or `test`; the webhook route tries every unexpired one in turn.
 * Rotation: add the new secret, schedule the old one to expire once the provider has switched
 * (Stripe keeps signing with both for up to 24 h), so deliveries signed with either verify during
 * the overlap. Secrets never leave this module except towards verification: summaries carry a
 * short fingerprint instead.
 */
import type { EntityManager } from '@mikro-orm/sql';
import type { CoreDeps } from '../deps.ts';
import { sha256Hex } from '../shared/crypto.ts';
import { AppError } from '../shared/errors.ts';
import { Program } from '../entities/program.ts';
import { ProviderConnection, type IProviderConnection } from '../entities/provider-connection.ts';
import { ProviderSecret, type IProviderSecret } from '../entities/provider-secret.ts';
import { type ProviderSecretLabel, WEBHOOK_PROVIDERS, type WebhookProvider } from '../shared/vocabulary.ts';
import { apiKeyState, writeApiKey, type ApiKeyState } from './provider-api-keys.ts';
import type { VerificationSecret } from '../ports.ts';

/** Verification tries every secret, so their number is bounded. */
export const MAX_SECRETS_PER_CONNECTION = 10;

/** What the admin API shows of a secret: never the secret itself. */
export type ProviderSecretSummary = {
  id: number;
  label: ProviderSecretLabel;
  createdAt: Date;
  expiresAt: Date | null;
  /** First 8 hex characters of the secret's SHA-256: enough to tell secrets apart, not to guess one. */
  fingerprint: string;
};

export type NewProviderSecret = { secret: string; label: ProviderSecretLabel; expiresAt: Date | null };

export function computeSecretFingerprint(secret: string): string {
  return sha256Hex(secret).slice(0, 8);
}

function summarise(row: IProviderSecret): ProviderSecretSummary {
  return {
    id: row.id,
    label: row.label,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt ?? null,
    fingerprint: computeSecretFingerprint(row.secret),
  };
}

/**
 * Connects a provider with exactly one secret, replacing any others (the original one-secret
 * workflow: re-connecting with a new secret takes effect at once). `apiKey` sets (or, `null`,
 * clears) the connection's API key (provider-api-keys.ts); omitted, it is kept. Throws `not_found`
 * for an unknown program, `invalid_request` for an unknown provider, a too short secret, or an
 * API key the provider does not use or the server cannot seal.
 */
export async function connectProvider(
  deps: CoreDeps,
  programId: number,
  provider: WebhookProvider,
  secret: string,
  label: ProviderSecretLabel = 'live',
  apiKey?: string | null,
): Promise<{ provider: WebhookProvider; programId: number; secret: ProviderSecretSummary; apiKey: ApiKeyState }> {
  checkSecret(secret);
  // Sealed before anything is written, so a refused key changes nothing.
  const key = { provider, apiKeySealed: null as string | null, apiKeyHint: null as string | null };
  if (apiKey !== undefined) writeApiKey(deps, key, apiKey);
  const em = deps.em;
  const connection = await findOrCreateConnection(em, programId, provider);
  if (apiKey !== undefined) Object.assign(connection, { apiKeySealed: key.apiKeySealed, apiKeyHint: key.apiKeyHint });
  await em.nativeDelete(ProviderSecret, { connection: connection.id });
  const row = em.create(ProviderSecret, {
    connection: connection.id,
    label,
    secret,
    createdAt: deps.clock(),
    expiresAt: null,
  });
  await em.flush();
  forgetSecrets(deps, programId, provider);
  return { provider, programId, secret: summarise(row), apiKey: apiKeyState(connection) };
}

/** Adds a secret beside the existing ones (connecting the provider if needed). */
export async function addProviderSecret(
  deps: CoreDeps,
  programId: number,
  provider: WebhookProvider,
  input: NewProviderSecret,
): Promise<ProviderSecretSummary> {
  checkSecret(input.secret);
  const em = deps.em;
  const connection = await findOrCreateConnection(em, programId, provider);
  if ((await em.count(ProviderSecret, { connection: connection.id })) >= MAX_SECRETS_PER_CONNECTION) {
    throw new AppError(
      'invalid_request',
      `A connection holds at most ${MAX_SECRETS_PER_CONNECTION} secrets; remove an old one first`,
    );
  }
  const row = em.create(ProviderSecret, {
    connection: connection.id,
    label: input.label,
    secret: input.secret,
    createdAt: deps.clock(),
    expiresAt: input.expiresAt,
  });
  await em.flush();
  forgetSecrets(deps, programId, provider);
  return summarise(row);
}

/** Every secret of the connection, expired ones included, oldest first. Throws `not_found`. */
export async function listProviderSecrets(
  deps: CoreDeps,
  programId: number,
  provider: WebhookProvider,
): Promise<ProviderSecretSummary[]> {
  const em = deps.em;
  const connection = await findConnectionOrFail(em, programId, provider);
  const rows = await em.find(ProviderSecret, { connection: connection.id }, { orderBy: { id: 'asc' } });
  return rows.map(summarise);
}

/** Schedules the secret to stop verifying at `at` (now when null). Throws `not_found`. */
export async function expireProviderSecret(
  deps: CoreDeps,
  programId: number,
  provider: WebhookProvider,
  secretId: number,
  at: Date | null,
): Promise<ProviderSecretSummary> {
  const em = deps.em;
  const row = await findSecretOrFail(em, programId, provider, secretId);
  row.expiresAt = at ?? deps.clock();
  await em.flush();
  forgetSecrets(deps, programId, provider);
  return summarise(row);
}

/** Deletes the secret at once. Throws `not_found`. */
export async function removeProviderSecret(
  deps: CoreDeps,
  programId: number,
  provider: WebhookProvider,
  secretId: number,
): Promise<void> {
  const em = deps.em;
  const row = await findSecretOrFail(em, programId, provider, secretId);
  em.remove(row);
  await em.flush();
  forgetSecrets(deps, programId, provider);
}

/**
 * The secrets the webhook route tries; `null` when the provider is not connected. Read at most once
 * per `SETTINGS_CACHE_MS` per connection and process (see settings-cache.ts): the writers below
 * forget the entry at once in their process. Expiry is left to the caller, checked against its
 * clock at each delivery, so a remembered list still stops accepting an expired secret on time.
 */
export async function loadVerificationSecrets(
  deps: Pick<CoreDeps, 'em' | 'caches'>,
  programId: number,
  provider: WebhookProvider,
): Promise<readonly VerificationSecret[] | null> {
  const key = secretCacheKey(programId, provider);
  const hit = deps.caches.secrets.get(key);
  if (hit !== undefined) return hit;
  const secrets = await readVerificationSecrets(deps.em, programId, provider);
  deps.caches.secrets.set(key, secrets);
  return secrets;
}

async function readVerificationSecrets(
  em: EntityManager,
  programId: number,
  provider: WebhookProvider,
): Promise<readonly VerificationSecret[] | null> {
  const connection = await em.findOne(ProviderConnection, { program: programId, provider }, { fields: ['id'] });
  if (!connection) return null;
  const rows = await em.find(ProviderSecret, { connection: connection.id }, { orderBy: { id: 'asc' } });
  return Object.freeze(
    rows.map((row) =>
      Object.freeze({ id: row.id, label: row.label, secret: row.secret, expiresAt: row.expiresAt ?? null }),
    ),
  );
}

/**
 * `CoreCaches.secrets`, a plain map rather than MikroORM's result cache: a hit there still hydrated
 * two entities into the request's context, about 50 µs of CPU per webhook (`npm run bench`).
 */
const secretCacheKey = (programId: number, provider: WebhookProvider) => `${programId}-${provider}`;

function forgetSecrets(deps: Pick<CoreDeps, 'caches'>, programId: number, provider: WebhookProvider): void {
  deps.caches.secrets.delete(secretCacheKey(programId, provider));
}

/** The secrets that still verify at `now`. */
export function selectUnexpiredSecrets(secrets: readonly VerificationSecret[], now: Date): VerificationSecret[] {
  return secrets.filter((s) => s.expiresAt === null || s.expiresAt.getTime() > now.getTime());
}

function checkSecret(secret: string): void {
  if (secret.length < 8) throw new AppError('invalid_request', 'The signing secret looks too short');
}

async function findOrCreateConnection(
  em: EntityManager,
  programId: number,
  provider: WebhookProvider,
): Promise<IProviderConnection> {
  if (!(WEBHOOK_PROVIDERS as readonly string[]).includes(provider))
    throw new AppError('invalid_request', `Unknown provider "${provider}"`);
  if (!(await em.count(Program, { id: programId }))) throw new AppError('not_found', 'No such program');
  const existing = await em.findOne(ProviderConnection, { program: programId, provider });
  if (existing) return existing;
  const created = em.create(ProviderConnection, { program: programId, provider });
  await em.flush();
  return created;
}

async function findConnectionOrFail(
  em: EntityManager,
  programId: number,
  provider: WebhookProvider,
): Promise<IProviderConnection> {
  const connection = await em.findOne(ProviderConnection, { program: programId, provider });
  if (!connection) throw new AppError('not_found', `${provider} is not connected to program ${programId}`);
  return connection;
}

async function findSecretOrFail(
  em: EntityManager,
  programId: number,
  provider: WebhookProvider,
  secretId: number,
): Promise<IProviderSecret> {
  const connection = await findConnectionOrFail(em, programId, provider);
  const row = await em.findOne(ProviderSecret, { id: secretId, connection: connection.id });
  if (!row) throw new AppError('not_found', 'No such secret on this connection');
  return row;
}
