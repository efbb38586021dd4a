import { z } from 'zod';

/** `/.well-known/statement-keys.json` (docs/statement-verification.md). */
export const statementKeysBody = z.strictObject({
  keys: z.array(
    z.strictObject({
      key_id: z.string(),
      algorithm: z.literal('Ed25519'),
      public_key: z.string().describe('The raw 32-byte Ed25519 public key, base64url'),
      created_at: z.string(),
      retired_at: z.string().nullable(),
    }),
  ),
});
export type StatementKeysBody = z.infer<typeof statementKeysBody>;
