import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';
import { PartnerGroup } from './partner-group.ts';

/** A referring partner (affiliate). `code` is the `aff` value in partner links, unique service-wide. */
export const Partner = defineEntity({
  name: 'Partner',
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk(),
    code: p.string().unique(),
    name: p.string(),
    email: p.string().nullable(),
    /** Portal password (bcrypt), set through an invite; null until the partner accepts one. */
    passwordHash: p.string().nullable(),
    /** The partner's group (its reward rules); null: the program's rules. */
    group: () => p.manyToOne(PartnerGroup).mapToPk().nullable(),
    /** The program terms version the partner accepted (applications) and when; null: none recorded. */
    termsVersion: p.string().nullable(),
    termsAcceptedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type IPartner = InferEntity<typeof Partner>;
