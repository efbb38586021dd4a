import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { AppError } from '../../core/shared/errors.ts';
import { rotateStatementKey } from '../../core/ledger/statement-keys.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import type { AdminHelpers } from './admin-helpers.ts';

const rotatedBody = z.strictObject({
  key_id: z.string().meta({ description: 'The new signing key' }),
  public_key: z.string().meta({ description: 'Its raw 32-byte Ed25519 public key, base64url' }),
  retired: z.array(z.string()).meta({ description: 'Key ids retired by this call (still published, still verify)' }),
});

/** Rotation of the deployment's statement-signing key (docs/statement-verification.md). */
export function registerStatementKeyRoutes(ctx: RouteContext, { on }: AdminHelpers): void {
  on('post', '/statement-keys/rotate', async () => {
    const deps = ctx.deps();
    if (!deps.sealer?.canSeal)
      throw new AppError('invalid_request', 'No encryption key is configured: set DATA_ENCRYPTION_KEYS first');
    const { key, retired } = await rotateStatementKey(deps.em, deps.sealer, deps.clock());
    return { key_id: key.keyId, public_key: key.publicKey, retired } satisfies z.infer<typeof rotatedBody>;
  });
}

export const statementKeyOperations = [
  adminOperation('post', '/statement-keys/rotate', 'rotateStatementKey', 'Rotate the statement-signing key', {
    description:
      'A new Ed25519 key signs statement checkpoints from now on; the current one is retired and stays published at `/.well-known/statement-keys.json`, so the checkpoints it signed still verify. The private key is stored sealed (DATA_ENCRYPTION_KEYS) and never returned.',
    errors: ['invalid_request'],
    responses: { 200: { description: 'The new key and the retired ones', schema: rotatedBody } },
  }),
];
