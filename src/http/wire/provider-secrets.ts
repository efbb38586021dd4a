import type { ProviderSecretSummary } from '../../core/integrations/provider-secrets.ts';
import type { ProviderSecretWire } from './responses.ts';

/** Never the secret: id, label, times and a short fingerprint. */
export function secretToWire(s: ProviderSecretSummary): ProviderSecretWire {
  return {
    id: s.id,
    label: s.label,
    created_at: s.createdAt.toISOString(),
    expires_at: s.expiresAt?.toISOString() ?? null,
    fingerprint: s.fingerprint,
  };
}
