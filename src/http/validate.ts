import type { z } from 'zod';
import { AppError } from '../core/errors.ts';

/** Parses with a zod schema; failures become 400 `invalid_request` listing each bad field. */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const res = schema.safeParse(input);
  if (res.success) return res.data;
  const issues = res.error.issues.map((i) => ({ field: i.path.join('.') || null, message: i.message, ...('keys' in i ? { keys: i.keys } : {}) }));
  const first = issues[0];
  throw new AppError('invalid_request', `${first.field ? `${first.field}: ` : ''}${first.message}`, { issues });
}
