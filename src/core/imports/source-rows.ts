import type { EntityManager } from '@mikro-orm/sql';
import { ImportSourceRow, type ImportRowKind } from '../entities/import-source-row.ts';

/** Where an import's rows are mapped: the program and the source they came from. */
export type ImportScope = { programId: number; source: string; now: Date };

/** The id of the row an import made for a source record, or null when none was made yet. */
export async function mappedRow(
  em: EntityManager,
  s: ImportScope,
  kind: ImportRowKind,
  sourceId: string,
): Promise<number | null> {
  const row = await em.findOne(
    ImportSourceRow,
    { program: s.programId, source: s.source, kind, sourceId },
    { fields: ['rowId'] },
  );
  return row?.rowId ?? null;
}

/** Records that `rowId` was made for the source record (in the transaction that made it). */
export async function mapRow(
  em: EntityManager,
  s: ImportScope,
  kind: ImportRowKind,
  sourceId: string,
  rowId: number,
): Promise<void> {
  em.create(ImportSourceRow, { program: s.programId, source: s.source, kind, sourceId, rowId, createdAt: s.now });
  await em.flush();
}

/** The source ids of a kind already mapped, with their row ids (the balance comparison). */
export async function mappedRows(
  em: EntityManager,
  s: Pick<ImportScope, 'programId' | 'source'>,
  kind: ImportRowKind,
): Promise<Map<string, number>> {
  const rows = await em.find(
    ImportSourceRow,
    { program: s.programId, source: s.source, kind },
    { fields: ['sourceId', 'rowId'], disableIdentityMap: true },
  );
  return new Map(rows.map((r) => [r.sourceId, r.rowId]));
}
