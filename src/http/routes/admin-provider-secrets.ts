import type { H3Event } from 'h3';
import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { AppError } from '../../core/shared/errors.ts';
import { WEBHOOK_PROVIDERS, type WebhookProvider } from '../../core/shared/vocabulary.ts';
import {
  addProviderSecret,
  connectProvider,
  expireProviderSecret,
  listProviderSecrets,
  removeProviderSecret,
} from '../../core/integrations/provider-secrets.ts';
import { secretToWire } from '../wire/provider-secrets.ts';
import {
  providerConnectedBody,
  providerSecretBody,
  providerSecretsBody,
  removedBody,
  type ProviderConnectedBody,
  type ProviderSecretBody,
  type ProviderSecretsBody,
  type RemovedBody,
} from '../wire/responses.ts';
import { json } from '../route.ts';
import { validate } from '../validate.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import type { AdminHelpers } from './admin-helpers.ts';
import { addSecretSchema, connectSchema, expireSecretSchema } from '../wire/requests.ts';
import { apiKeyToWire } from '../wire/provider-connections.ts';

function providerOf(e: H3Event): WebhookProvider {
  const provider = z.enum(WEBHOOK_PROVIDERS).safeParse(e.context.params?.provider);
  if (!provider.success) throw new AppError('not_found', 'Unknown provider');
  return provider.data;
}

/**
 * Provider connections and their signing secrets. `PUT` connects with exactly one secret
 * (replacing others); the `secrets` routes add, list, expire and remove secrets one by one, for
 * rotations and for live and test endpoints side by side.
 */
export function registerProviderSecretRoutes(ctx: RouteContext, { on, body, num }: AdminHelpers): void {
  on('put', '/programs/:id/providers/:provider', async (e) => {
    const provider = providerOf(e);
    const input = validate(connectSchema, await body(e));
    const r = await connectProvider(
      ctx.deps(),
      num(e, 'id'),
      provider,
      input.signing_secret,
      input.label,
      input.api_key,
    );
    const base = ctx.config.PUBLIC_BASE_URL ?? '';
    return {
      connected: true,
      provider: r.provider,
      program_id: r.programId,
      webhook_url: `${base}/api/v1/webhooks/${r.provider}/${r.programId}`,
      ...apiKeyToWire(r.apiKey),
    } satisfies ProviderConnectedBody;
  });
  on('post', '/programs/:id/providers/:provider/secrets', async (e) => {
    const provider = providerOf(e);
    const input = validate(addSecretSchema, await body(e));
    const secret = await addProviderSecret(ctx.deps(), num(e, 'id'), provider, {
      secret: input.secret,
      label: input.label,
      expiresAt: input.expires_at ? new Date(input.expires_at) : null,
    });
    return json({ secret: secretToWire(secret) } satisfies ProviderSecretBody, 201);
  });
  on('get', '/programs/:id/providers/:provider/secrets', async (e) => {
    const secrets = await listProviderSecrets(ctx.deps(), num(e, 'id'), providerOf(e));
    return { secrets: secrets.map(secretToWire) } satisfies ProviderSecretsBody;
  });
  on('post', '/programs/:id/providers/:provider/secrets/:secretId/expire', async (e) => {
    const provider = providerOf(e);
    const { at } = validate(expireSecretSchema, await body(e));
    const secret = await expireProviderSecret(
      ctx.deps(),
      num(e, 'id'),
      provider,
      num(e, 'secretId'),
      at ? new Date(at) : null,
    );
    return { secret: secretToWire(secret) } satisfies ProviderSecretBody;
  });
  on('delete', '/programs/:id/providers/:provider/secrets/:secretId', async (e) => {
    await removeProviderSecret(ctx.deps(), num(e, 'id'), providerOf(e), num(e, 'secretId'));
    return { removed: true } satisfies RemovedBody;
  });
}

const id = z.number().int().positive();
const provider = z.enum(WEBHOOK_PROVIDERS);
const secretOp = (
  method: 'get' | 'post' | 'put' | 'delete',
  path: string,
  operationId: string,
  summary: string,
  rest: Parameters<typeof adminOperation>[4],
) =>
  adminOperation(method, path, operationId, summary, {
    ...rest,
    params: { id, provider, secretId: id },
    errors: ['not_found', ...(rest.errors ?? [])],
  });

export const providerSecretOperations = [
  secretOp(
    'put',
    '/programs/:id/providers/:provider',
    'connectProvider',
    'Connect a payment provider with one signing secret (replacing others)',
    {
      body: connectSchema,
      responses: {
        200: {
          description:
            "Connected; point the provider's webhook at `webhook_url` (absolute when PUBLIC_BASE_URL is set)",
          schema: providerConnectedBody,
        },
      },
    },
  ),
  secretOp(
    'post',
    '/programs/:id/providers/:provider/secrets',
    'addProviderSecret',
    'Add a signing secret (rotation, or live and test endpoints side by side)',
    {
      body: addSecretSchema,
      responses: { 201: { description: 'Added', schema: providerSecretBody } },
    },
  ),
  secretOp(
    'get',
    '/programs/:id/providers/:provider/secrets',
    'listProviderSecrets',
    "A provider connection's signing secrets (fingerprints only)",
    {
      responses: { 200: { description: 'The secrets', schema: providerSecretsBody } },
    },
  ),
  secretOp(
    'post',
    '/programs/:id/providers/:provider/secrets/:secretId/expire',
    'expireProviderSecret',
    'Expire a signing secret now or at `at`',
    {
      body: expireSecretSchema,
      bodyOptional: true,
      responses: { 200: { description: 'The secret with its expiry', schema: providerSecretBody } },
    },
  ),
  secretOp(
    'delete',
    '/programs/:id/providers/:provider/secrets/:secretId',
    'removeProviderSecret',
    'Remove a signing secret',
    {
      responses: { 200: { description: 'Removed', schema: removedBody } },
    },
  ),
];
