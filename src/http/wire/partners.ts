import { z } from 'zod';

/** A new partner; `code` is the `aff` value of its links. */
export const partnerCreateSchema = z.strictObject({
  code: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_-]{2,64}$/, '2-64 letters, digits, "-" or "_"'),
  name: z.string().trim().min(1).max(200),
  email: z.email().max(255).nullable().optional(),
});

/**
 * A partner's coupon code: what the customer types (matched in any case), and the payment
 * providers' own ids of the same discount, for payloads that carry only the id.
 */
export const partnerCodeCreateSchema = z.strictObject({
  code: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_.-]{2,64}$/, '2-64 letters, digits, ".", "-" or "_"'),
  provider_ids: z.array(z.string().trim().min(1).max(255)).max(20).optional(),
});
