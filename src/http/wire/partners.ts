import { z } from 'zod';
import { rewardRulesSchema } from '../../core/entities/program-rules.ts';

/** A new partner; `code` is the `aff` value of its links. */
export const partnerCreateSchema = z.strictObject({
  code: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_-]{2,64}$/, '2-64 letters, digits, "-" or "_"'),
  name: z.string().trim().min(1).max(200),
  email: z.email().max(255).nullable().optional(),
});

/** A group of partners with its own reward rules (null: the program's). */
export const partnerGroupCreateSchema = z.strictObject({
  name: z.string().trim().min(1).max(100),
  reward_rules: rewardRulesSchema.nullable().optional(),
});
export const partnerGroupUpdateSchema = partnerGroupCreateSchema.partial();
/** The partner's group; null: none (the program's rules). */
export const partnerGroupAssignSchema = z.strictObject({ group_id: z.number().int().positive().nullable() });

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
