import type { ProviderSecretLabel } from '../core/shared/vocabulary.ts';
import type { ProviderAdapter, VerifyFailureReason } from './adapter.ts';

/** One secret of a connection, as verification needs it. */
export type CandidateSecret = { id: number; label: ProviderSecretLabel; secret: string };

export type SecretVerifyResult =
  | { ok: true; event: unknown; secretId: number; label: ProviderSecretLabel }
  | { ok: false; reason: VerifyFailureReason };

/** Header problems are the same whichever secret is tried: no point trying the others. */
const SECRET_INDEPENDENT: ReadonlySet<VerifyFailureReason> = new Set([
  'missing_signature_header',
  'malformed_signature_header',
  'ambiguous_signed_fields',
]);

/**
 * Tries the adapter's verification with each secret in turn (each comparison constant-time inside
 * the adapter) and says which secret matched, so the caller can treat a `test` secret's events as
 * test traffic. On failure the most telling reason wins: a genuine signature that is too old or
 * not JSON says more than the mismatches of the other secrets.
 */
export async function verifyWithSecrets(
  adapter: ProviderAdapter,
  rawBody: Uint8Array,
  headers: Headers,
  secrets: readonly CandidateSecret[],
  now: Date,
): Promise<SecretVerifyResult> {
  let reason: VerifyFailureReason = 'missing_secret';
  for (const candidate of secrets) {
    const result = await adapter.verify(rawBody, headers, candidate.secret, now);
    if (result.ok) return { ok: true, event: result.event, secretId: candidate.id, label: candidate.label };
    if (SECRET_INDEPENDENT.has(result.reason)) return result;
    if (reason === 'missing_secret' || reason === 'signature_mismatch') reason = result.reason;
  }
  return { ok: false, reason };
}
