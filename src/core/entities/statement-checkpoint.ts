import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Partner } from './partner.ts';
import { Program } from './program.ts';

/** Why a checkpoint was signed. */
export type CheckpointReason = 'payout' | 'schedule';

/**
 * A signed head of a partner's statement (docs/statement-verification.md): after line `entryId`
 * (a `balance_entry` id), the statement has `lines` lines, chain hash `hash`, causes digest
 * `digest` and the balances `balances` (`CUR:cents;…`, currencies in order). `signature` is the
 * Ed25519 signature (hex) of the canonical checkpoint message by the key `keyId`.
 */
export const StatementCheckpoint = defineEntity({
  name: 'StatementCheckpoint',
  indexes: [{ properties: ['partner', 'entryId'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk(),
    partner: () => p.manyToOne(Partner).mapToPk(),
    entryId: p.integer(),
    lines: p.integer(),
    hash: p.string().length(64),
    /** The causes digest after line `entryId` (statement-hash.ts `statementCauseDigest`). */
    digest: p.string().length(64),
    balances: p.text(),
    reason: p.string().$type<CheckpointReason>(),
    keyId: p.string().length(16),
    signature: p.string().length(128),
    signedAt: p.datetime(),
  },
});
export type IStatementCheckpoint = InferEntity<typeof StatementCheckpoint>;
