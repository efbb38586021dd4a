import { rollupTriggers } from './daily-rollup.ts';
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';
import { Partner } from './partner.ts';

/** A partner-link visit. Its id is the `tracker_click_id` cookie; `clickedAt` is its age origin. */
export const Click = defineEntity({
  name: 'Click',
  triggers: rollupTriggers('click'),
  /** A partner's clicks of a period (the click-rate fraud rule). */
  indexes: [{ properties: ['partner', 'clickedAt'] }, { properties: ['program', 'createdAt'] }],
  properties: {
    id: p.string().primary(),
    program: () => p.manyToOne(Program).mapToPk().index(),
    partner: () => p.manyToOne(Partner).mapToPk(),
    affiliateUrl: p.text(),
    pageUrl: p.text().nullable(),
    referrerUrl: p.text().nullable(),
    visitorId: p.string().nullable(),
    /** Reset when the click is overwritten by a later partner link (last-partner attribution). */
    clickedAt: p.datetime(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type IClick = InferEntity<typeof Click>;
