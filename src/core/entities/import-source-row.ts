import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';

/** The kinds of rows an import creates and maps to their source ids. */
export type ImportRowKind = 'partner' | 'customer' | 'commission' | 'sale' | 'payout';

/**
 * A row an import created, by its id at the source: written in the same transaction as the row,
 * so applying a record twice (a second run, or a run restarted after it was killed) creates nothing.
 */
export const ImportSourceRow = defineEntity({
  name: 'ImportSourceRow',
  uniques: [{ properties: ['program', 'source', 'kind', 'sourceId'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk(),
    source: p.string(),
    kind: p.string().$type<ImportRowKind>(),
    sourceId: p.string(),
    rowId: p.integer(),
    createdAt: p.datetime(),
  },
});
export type IImportSourceRow = InferEntity<typeof ImportSourceRow>;
