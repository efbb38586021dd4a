import type { RouteContext } from '../http-context.ts';
import { listStatementKeys } from '../../core/ledger/statement-keys.ts';
import { json } from '../route.ts';
import { defineOperation } from '../openapi/operation.ts';
import { statementKeysBody, type StatementKeysBody } from '../wire/statement-keys.ts';

export const STATEMENT_KEYS_PATH = '/.well-known/statement-keys.json';

/**
 * GET /.well-known/statement-keys.json: every public key that signed or signs statement
 * checkpoints, newest first (docs/statement-verification.md). Public: no authentication.
 */
export function statementKeysRoute(ctx: RouteContext) {
  return async () => {
    const keys = await listStatementKeys(ctx.deps().em);
    const body: StatementKeysBody = {
      keys: keys.map((k) => ({
        key_id: k.keyId,
        algorithm: k.algorithm,
        public_key: k.publicKey,
        created_at: k.createdAt.toISOString(),
        retired_at: k.retiredAt?.toISOString() ?? null,
      })),
    };
    return json(body, 200, { 'cache-control': 'public, max-age=300', 'access-control-allow-origin': '*' });
  };
}

export const statementKeysOperation = defineOperation({
  method: 'get',
  path: STATEMENT_KEYS_PATH,
  operationId: 'getStatementKeys',
  tag: 'Service',
  security: [],
  summary: 'The public keys that sign partners’ statement checkpoints',
  description:
    'Ed25519 public keys (raw 32 bytes, base64url) by key id, newest first; a retired key (`retired_at` set) no longer signs but still verifies the checkpoints it signed. A statement export names the key of its checkpoint (`checkpoint_key_id`); `npx tracker verify-statement` checks it offline.',
  responses: { 200: { description: 'The keys', schema: statementKeysBody } },
  errors: [],
});
