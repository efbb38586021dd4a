import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';
import type { RewardRules } from './program-rules.ts';

/**
 * A group of a program's partners with its own reward rules (reward-rules.ts): a partner belongs
 * to at most one group; a partner in none, or in a group without rules, earns under the
 * program's rules.
 */
export const PartnerGroup = defineEntity({
  name: 'PartnerGroup',
  uniques: [{ properties: ['program', 'name'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk(),
    name: p.string(),
    rewardRules: p.json<RewardRules>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type IPartnerGroup = InferEntity<typeof PartnerGroup>;
