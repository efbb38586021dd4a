import { z } from 'zod';
import { rewardRulesSchema } from '../../core/entities/program-rules.ts';
import { RECURRING_POLICIES } from '../../core/shared/vocabulary.ts';

/**
 * `GET /partner/me`'s `terms` (extension): what the partner earns under, so the portal can say it
 * in words: their group's reward rules, else the program's (null: the commission rate alone), and
 * the program's recurring policy (the rules' own `recurring` replaces it).
 */
export const partnerTermsWire = z
  .strictObject({
    reward_rules: rewardRulesSchema.nullable(),
    recurring_policy: z.enum(RECURRING_POLICIES),
    recurring_months: z.number().int().nullable(),
  })
  .meta({ description: "The partner's reward terms: their group's rules, else the program's (extension)" });
