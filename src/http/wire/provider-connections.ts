import { z } from 'zod';
import { WEBHOOK_PROVIDERS } from '../../core/shared/vocabulary.ts';
import type { ApiKeyState } from '../../core/integrations/provider-api-keys.ts';

/*
 * Response bodies of a provider connection's API key and of the sealed secrets' re-seal (zod and
 * type-only imports, like responses.ts). The key itself is write-only: never in a response.
 */

export const apiKeyFields = {
  api_key_set: z.boolean().meta({ description: 'Whether the connection holds an API key (never returned)' }),
  api_key_hint: z
    .string()
    .nullable()
    .meta({ description: "The key's last 4 characters (`…abcd`; `…` for a short key); null without a key" }),
};

export function apiKeyToWire(s: ApiKeyState): { api_key_set: boolean; api_key_hint: string | null } {
  return { api_key_set: s.apiKeySet, api_key_hint: s.apiKeyHint };
}

export const providerConnectionBody = z.strictObject({
  provider: z.enum(WEBHOOK_PROVIDERS),
  program_id: z.number().int(),
  ...apiKeyFields,
});
export type ProviderConnectionBody = z.infer<typeof providerConnectionBody>;

export const resealBody = z.strictObject({
  seal_key_id: z.string().meta({ description: 'The key every sealed value is now sealed with' }),
  resealed: z.number().int().meta({ description: 'Values re-sealed by this call' }),
  unchanged: z.number().int().meta({ description: 'Values already sealed with that key' }),
});
export type ResealBody = z.infer<typeof resealBody>;
