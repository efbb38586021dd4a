import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';

/** A problem row of an import: which record, and why it was not applied. */
export type ImportRunProblem = { of: string; sourceId: string | null; reason: string };

/** One partner's balance after an import: what the source says and what the program now holds. */
export type ImportBalanceCheck = {
  partnerSourceId: string;
  partnerId: number | null;
  currency: string;
  sourceCents: number;
  oursCents: number | null;
  matches: boolean;
};

/** Counts of an import by record kind (partner, customer, commission, payout). */
export type ImportCounts = Record<string, { created: number; skipped: number; problems: number }>;

/** What an import did, kept with its run (imports/run-import.ts). */
export type ImportReport = {
  counts: ImportCounts;
  problems: ImportRunProblem[];
  balances: ImportBalanceCheck[];
};

/**
 * One run of an import from another tool (imports/): the source, whether it was a dry run, its
 * counts, problems row by row and the balance comparison. The API key it used is never kept.
 */
export const ImportRun = defineEntity({
  name: 'ImportRun',
  indexes: [{ properties: ['program', 'startedAt'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk(),
    source: p.string(),
    dryRun: p.boolean(),
    /** `running` → `finished` | `failed` (`error` says why). */
    status: p.string().$type<'running' | 'finished' | 'failed'>(),
    createdCount: p.integer().default(0),
    skippedCount: p.integer().default(0),
    problemCount: p.integer().default(0),
    report: p.json<ImportReport>(),
    error: p.text().nullable(),
    startedAt: p.datetime(),
    finishedAt: p.datetime().nullable(),
  },
});
export type IImportRun = InferEntity<typeof ImportRun>;
