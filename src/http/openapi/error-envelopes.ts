import { z } from 'zod';
import type { ErrorCode } from '../../core/shared/errors.ts';
import { ERROR_TABLE } from '../error-table.ts';

/** The platform envelope of one status (spec: Errors), its `code` limited to `codes`. */
export function platformEnvelopeSchema(status: number, codes: ErrorCode[]) {
  const names = [...new Set(codes.map((c) => ERROR_TABLE[c].name))] as [string, ...string[]];
  return z
    .strictObject({
      data: z.null(),
      error: z.strictObject({
        status: z.literal(status),
        name: z.enum(names),
        message: z.string(),
        details: z.record(z.string(), z.unknown()).meta({
          description: 'Per-code details, e.g. `sale_id` of `duplicate_transaction`, `issues` of `invalid_request`',
        }),
        code: z.enum(codes as [ErrorCode, ...ErrorCode[]]),
      }),
    })
    .meta({ description: 'Platform error envelope' });
}

/** The typed envelope (retired key, rate limiting, queue unavailable): `code`, `message` and fields of its own. */
export function typedEnvelopeSchema(codes: ErrorCode[]) {
  return z
    .strictObject({
      error: z.looseObject({
        code: z.enum(codes as [ErrorCode, ...ErrorCode[]]),
        message: z.string(),
        retry_after_seconds: z.number().int().positive().optional().meta({
          description: '`rate_limited`, `service_unavailable`: seconds to wait (also the Retry-After header)',
        }),
        limit_seconds: z
          .number()
          .positive()
          .optional()
          .meta({ description: '`service_unavailable` of a report stopped at its time limit: the limit, seconds' }),
        hint: z.string().optional().meta({ description: '`api_key_rotation_required`: what to do' }),
        docs_url: z.string().optional().meta({ description: '`api_key_rotation_required`: where it is explained' }),
      }),
    })
    .meta({ description: 'Typed error envelope' });
}

/** The schema of every error body a status can carry for these codes (one or both envelopes). */
export function errorResponseSchema(status: number, codes: ErrorCode[]): z.ZodType {
  const platform = codes.filter((c) => ERROR_TABLE[c].envelope === 'platform');
  const typed = codes.filter((c) => ERROR_TABLE[c].envelope === 'typed');
  const parts: z.ZodType[] = [];
  if (platform.length) parts.push(platformEnvelopeSchema(status, platform));
  if (typed.length) parts.push(typedEnvelopeSchema(typed));
  return parts.length === 1 ? (parts[0] as z.ZodType) : z.union(parts as [z.ZodType, z.ZodType]);
}
