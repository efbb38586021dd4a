import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { issueApiKey, retireApiKey, rotateApiKey } from '../../core/programs/api-keys.ts';
import { json } from '../route.ts';
import { validate } from '../validate.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import { issuedKeyToWire, rotatedKeyToWire } from '../wire/api-keys.ts';
import { row, rowToWire } from '../wire/records.ts';
import { issuedKeyBody, rotatedKeyBody, type RetiredKeyBody } from '../wire/responses.ts';
import type { AdminHelpers } from './admin-helpers.ts';
import { keyIssueSchema, keyRetireSchema, keyRotateSchema } from '../wire/requests.ts';

/** A program's API keys: issue (shown once), retire, rotate. Each change clears the key cache. */
export function registerApiKeyRoutes(ctx: RouteContext, { on, num, body }: AdminHelpers): void {
  on('post', '/programs/:id/keys', async (e) => {
    const { mode } = validate(keyIssueSchema, await body(e));
    return json(issuedKeyToWire(await issueApiKey(ctx.deps(), num(e, 'id'), mode)), 201);
  });
  on('post', '/programs/:id/keys/:keyId/retire', async (e) => {
    const { rotate_by } = validate(keyRetireSchema, await body(e));
    const k = await retireApiKey(ctx.deps(), num(e, 'id'), num(e, 'keyId'), rotate_by ? new Date(rotate_by) : null);
    ctx.keyCache.clear();
    return { key: rowToWire(k) } satisfies RetiredKeyBody;
  });
  on('post', '/programs/:id/keys/:keyId/rotate', async (e) => {
    const { grace_days } = validate(keyRotateSchema, await body(e));
    const r = await rotateApiKey(ctx.deps(), num(e, 'id'), num(e, 'keyId'), grace_days);
    ctx.keyCache.clear();
    return json(rotatedKeyToWire(r), 201);
  });
}

const id = z.number().int().positive();

export const apiKeyOperations = [
  adminOperation('post', '/programs/:id/keys', 'issueApiKey', 'Issue an API key (shown once)', {
    params: { id },
    body: keyIssueSchema,
    bodyOptional: true,
    errors: ['not_found'],
    responses: { 201: { description: 'Issued', schema: issuedKeyBody } },
  }),
  adminOperation(
    'post',
    '/programs/:id/keys/:keyId/retire',
    'retireApiKey',
    'Retire a key, at once or after `rotate_by`',
    {
      params: { id, keyId: id },
      body: keyRetireSchema,
      bodyOptional: true,
      errors: ['not_found'],
      responses: { 200: { description: 'Retired', schema: z.strictObject({ key: row }) } },
    },
  ),
  adminOperation(
    'post',
    '/programs/:id/keys/:keyId/rotate',
    'rotateApiKey',
    'Issue a replacement key; the old one keeps working for `grace_days`',
    {
      params: { id, keyId: id },
      body: keyRotateSchema,
      bodyOptional: true,
      errors: ['not_found'],
      responses: {
        201: { description: 'Rotated', schema: rotatedKeyBody },
      },
    },
  ),
];
