import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';

/** One question of a program's application form. `key` names the answer; `label` is shown. */
export type ApplicationField = {
  key: string;
  label: string;
  type: 'text' | 'url' | 'textarea';
  required: boolean;
};

/**
 * A program's public application form (`/apply/<program id>`): off until enabled. `termsVersion`
 * changes whenever `termsText` does; each applicant's acceptance records the version they saw.
 */
export const ApplicationForm = defineEntity({
  name: 'ApplicationForm',
  properties: {
    program: () => p.manyToOne(Program).primary().mapToPk().deleteRule('cascade'),
    enabled: p.boolean().default(false),
    intro: p.text().nullable(),
    fields: p.json<ApplicationField[]>(),
    termsText: p.text().nullable(),
    termsVersion: p.string().nullable(),
    /** Approve every valid application at once (still refused: disposable emails, duplicates). */
    autoApprove: p.boolean().default(false),
    updatedAt: p.datetime(),
  },
});
export type IApplicationForm = InferEntity<typeof ApplicationForm>;
