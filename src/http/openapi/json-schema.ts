import { z } from 'zod';

export type Json = Record<string, unknown>;

/** zod → JSON Schema 2020-12 (what OpenAPI 3.1 uses), without the `$schema` member. */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
  }) as Json;
  return rest;
}
