import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';
import { Partner } from './partner.ts';

import { APPLICATION_STATUSES, type ApplicationStatus } from '../shared/vocabulary.ts';

export { APPLICATION_STATUSES, type ApplicationStatus };

/**
 * Someone asking to join a program through its public form. `email` is lower-cased, one
 * application per address and program. Approval creates the partner (`partner`).
 */
export const PartnerApplication = defineEntity({
  name: 'PartnerApplication',
  uniques: [{ properties: ['program', 'email'] }],
  indexes: [{ properties: ['program', 'status', 'id'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk(),
    name: p.string(),
    email: p.string(),
    /** Answers by field key, as sent (trimmed). */
    answers: p.json<Record<string, string>>(),
    termsVersion: p.string().nullable(),
    termsAcceptedAt: p.datetime().nullable(),
    status: p.string().$type<ApplicationStatus>().default('pending'),
    /** Why it was rejected (sent to the applicant). */
    reason: p.text().nullable(),
    partner: () => p.manyToOne(Partner).mapToPk().nullable(),
    createdAt: p.datetime(),
    decidedAt: p.datetime().nullable(),
  },
});
export type IPartnerApplication = InferEntity<typeof PartnerApplication>;
