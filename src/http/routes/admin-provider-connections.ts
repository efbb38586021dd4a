import type { H3Event } from 'h3';
import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { AppError } from '../../core/shared/errors.ts';
import { WEBHOOK_PROVIDERS, type WebhookProvider } from '../../core/shared/vocabulary.ts';
import { readApiKeyState, setProviderApiKey } from '../../core/integrations/provider-api-keys.ts';
import { resealSecrets } from '../../core/programs/reseal-secrets.ts';
import {
  apiKeyToWire,
  providerConnectionBody,
  resealBody,
  type ProviderConnectionBody,
  type ResealBody,
} from '../wire/provider-connections.ts';
import { validate } from '../validate.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import type { AdminHelpers } from './admin-helpers.ts';
import { apiKeyValue } from '../wire/requests.ts';

const updateSchema = z.strictObject({ api_key: apiKeyValue });

function providerOf(e: H3Event): WebhookProvider {
  const provider = z.enum(WEBHOOK_PROVIDERS).safeParse(e.context.params?.provider);
  if (!provider.success) throw new AppError('not_found', 'Unknown provider');
  return provider.data;
}

/**
 * A provider connection's API key (set, clear, show whether one is set) and the re-seal of every
 * sealed secret after a key rotation. Connecting, and the signing secrets: admin-provider-secrets.ts.
 */
export function registerProviderConnectionRoutes(ctx: RouteContext, { on, body, num }: AdminHelpers): void {
  on('get', '/programs/:id/providers/:provider', async (e) => {
    const provider = providerOf(e);
    const programId = num(e, 'id');
    const state = await readApiKeyState(ctx.deps().em, programId, provider);
    return { provider, program_id: programId, ...apiKeyToWire(state) } satisfies ProviderConnectionBody;
  });
  on(
    'patch',
    '/programs/:id/providers/:provider',
    async (e) => {
      const provider = providerOf(e);
      const programId = num(e, 'id');
      const input = validate(updateSchema, await body(e));
      const state = await setProviderApiKey(ctx.deps(), programId, provider, input.api_key);
      return { provider, program_id: programId, ...apiKeyToWire(state) } satisfies ProviderConnectionBody;
    },
    async (e) => apiKeyToWire(await readApiKeyState(ctx.deps().em, num(e, 'id'), providerOf(e))),
  );
  on('post', '/sealed-secrets/reseal', async () => {
    const r = await resealSecrets(ctx.deps());
    return { seal_key_id: r.sealKeyId, resealed: r.resealed, unchanged: r.unchanged } satisfies ResealBody;
  });
}

const params = { id: z.number().int().positive(), provider: z.enum(WEBHOOK_PROVIDERS) };

export const providerConnectionOperations = [
  adminOperation('get', '/programs/:id/providers/:provider', 'getProviderConnection', 'A provider connection', {
    params,
    errors: ['not_found'],
    responses: {
      200: { description: 'The connection; of its API key only whether one is set', schema: providerConnectionBody },
    },
  }),
  adminOperation(
    'patch',
    '/programs/:id/providers/:provider',
    'updateProviderConnection',
    "Set or clear a provider connection's API key",
    {
      description:
        "Lemon Squeezy's order webhooks name no discount code: with the store's API key the service asks " +
        "Lemon Squeezy for the order's discount redemptions when nothing else attributes a discounted sale. " +
        'With a Stripe key (restricted: Invoices read, plus Transfers write for Stripe Connect payout runs) the ' +
        'service makes the Connect transfers of payout runs and asks Stripe which PaymentIntent paid a basil ' +
        'subscription invoice, so refunds of it apply without invoice_payment.paid. ' +
        'Other providers are refused (400). The key is stored sealed (DATA_ENCRYPTION_KEYS) and never returned.',
      params,
      body: updateSchema,
      errors: ['not_found'],
      responses: { 200: { description: 'The connection', schema: providerConnectionBody } },
    },
  ),
  adminOperation(
    'post',
    '/sealed-secrets/reseal',
    'resealSecrets',
    'Re-seal every stored secret with the current encryption key',
    {
      description:
        'After putting a new key first in DATA_ENCRYPTION_KEYS (keeping the old one after it) and restarting ' +
        'every process: rewrites each sealed value under the new key. The old key can be removed afterwards.',
      responses: { 200: { description: 'What was re-sealed', schema: resealBody } },
    },
  ),
];
