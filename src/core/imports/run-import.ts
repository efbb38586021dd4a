import { forkDeps, type CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { ImportRun, type IImportRun, type ImportBalanceCheck, type ImportReport } from '../entities/import-run.ts';
import { Program } from '../entities/program.ts';
import { readBalances } from '../ledger/ledger.ts';
import { safeCents } from '../db/sql.ts';
import type { ImportReader, ImportRecord, SourceBalance } from './import-records.ts';
import { applyCustomer, applyPartner, type Applied } from './apply-partners.ts';
import { applyCommission, applyPayout } from './apply-money.ts';
import { mappedRows, type ImportScope } from './source-rows.ts';

export type ImportOptions = {
  dryRun: boolean;
  /** A run already started (`startImportRun`, the admin API); absent: one is started here. */
  runId?: number;
  /** Called every `PROGRESS_EVERY` records with the counts so far (the run's row is updated too). */
  onProgress?: (report: ImportReport) => void;
};

const PROGRESS_EVERY = 25;
const KINDS = ['partner', 'customer', 'commission', 'payout'] as const;

/** Thrown inside a dry run's transaction to undo it once its report is read. */
class DryRunDone extends Error {}

/** Starts an import's run row (`running`), so its progress can be read while it runs. */
export async function startImportRun(
  deps: CoreDeps,
  programId: number,
  source: string,
  dryRun: boolean,
): Promise<IImportRun> {
  if (!(await deps.em.count(Program, { id: programId }))) throw new AppError('not_found', 'No such program');
  const run = deps.em.create(ImportRun, {
    program: programId,
    source,
    dryRun,
    status: 'running',
    report: emptyReport(),
    error: null,
    startedAt: deps.clock(),
    finishedAt: null,
  });
  await deps.em.flush();
  return run;
}

function emptyReport(): ImportReport {
  return {
    counts: Object.fromEntries(KINDS.map((k) => [k, { created: 0, skipped: 0, problems: 0 }])),
    problems: [],
    balances: [],
  };
}

/**
 * Applies a source's records to a program, each record in its own transaction with the mapping
 * of its source id (source-rows.ts): a second run creates nothing, and a run stopped midway and
 * started again ends as one that never stopped. Rows it cannot take are reported one by one. A dry
 * run applies everything in one transaction and rolls it back: its report says what a run would
 * create. The run's report is stored (`import_run`) and returned; a reader's failure marks it failed
 * and is thrown again.
 */
export async function runImport(
  deps: CoreDeps,
  programId: number,
  reader: ImportReader,
  opts: ImportOptions,
): Promise<IImportRun> {
  const runId = opts.runId ?? (await startImportRun(forkDeps(deps), programId, reader.source, opts.dryRun)).id;
  const scope: ImportScope = { programId, source: reader.source, now: deps.clock() };
  const report = emptyReport();
  const save = (fields: Partial<IImportRun>) =>
    forkDeps(deps).em.nativeUpdate(ImportRun, { id: runId }, { ...totals(report), report, ...fields });
  const due = new Map<string, number>();
  const progress = async (r: ImportReport) => {
    if (!opts.dryRun) await save({});
    opts.onProgress?.(r);
  };
  let failure: unknown = null;
  try {
    const stated = await reader.balances();
    if (opts.dryRun) {
      await deps.em
        .fork()
        .transactional(async (tx) => {
          const d = { ...deps, em: tx };
          const inTx: InTx = (apply) => tx.transactional((em) => apply({ ...d, em }));
          await applyAll(reader, scope, report, inTx, progress, due);
          report.balances = await compareBalances(d, scope, stated, due);
          throw new DryRunDone();
        })
        .catch((err) => {
          if (!(err instanceof DryRunDone)) throw err;
        });
    } else {
      const inTx: InTx = (apply) => {
        const d = forkDeps(deps);
        return d.em.transactional((em) => apply({ ...d, em }));
      };
      await applyAll(reader, scope, report, inTx, progress, due);
      report.balances = await compareBalances(forkDeps(deps), scope, stated, due);
    }
  } catch (err) {
    failure = err;
  }
  const finishedAt = deps.clock();
  const error = failure ? (failure instanceof Error ? failure.message : String(failure)) : null;
  await save({ status: failure ? 'failed' : 'finished', error, finishedAt });
  if (failure) throw failure;
  return forkDeps(deps).em.findOneOrFail(ImportRun, { id: runId });
}

function totals(report: ImportReport) {
  const all = Object.values(report.counts);
  return {
    createdCount: all.reduce((n, c) => n + c.created, 0),
    skippedCount: all.reduce((n, c) => n + c.skipped, 0),
    problemCount: all.reduce((n, c) => n + c.problems, 0),
  };
}

type InTx = (apply: (d: CoreDeps) => Promise<Applied>) => Promise<Applied>;

function applyRecord(
  d: CoreDeps,
  s: ImportScope,
  record: Exclude<ImportRecord, { kind: 'problem' }>,
): Promise<Applied> {
  switch (record.kind) {
    case 'partner':
      return applyPartner(d, s, record);
    case 'customer':
      return applyCustomer(d, s, record);
    case 'commission':
      return applyCommission(d, s, record);
    case 'payout':
      return applyPayout(d, s, record);
  }
}

/** Every record in order, each in a transaction of its own (`inTx`); an AppError is the record's problem. */
async function applyAll(
  reader: ImportReader,
  s: ImportScope,
  report: ImportReport,
  inTx: InTx,
  progress: (report: ImportReport) => Promise<void>,
  due: Map<string, number>,
): Promise<void> {
  let seen = 0;
  for await (const record of reader.records()) {
    const kind = record.kind === 'problem' ? record.of : record.kind;
    const counts = report.counts[kind]!;
    if (record.kind === 'commission' && record.status === 'due') {
      const key = `${record.partnerSourceId}\u0000${record.currency.toUpperCase()}`;
      due.set(key, (due.get(key) ?? 0) + record.amountMinor);
    }
    let applied: Applied;
    if (record.kind === 'problem') applied = { created: false, problems: [record.reason] };
    else {
      try {
        applied = await inTx((d) => applyRecord(d, s, record));
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        applied = { created: false, problems: [err.message] };
      }
    }
    if (applied.created) counts.created++;
    else if (!applied.problems.length) counts.skipped++;
    if (applied.problems.length) counts.problems++;
    for (const reason of applied.problems) report.problems.push({ of: kind, sourceId: record.sourceId, reason });
    if (++seen % PROGRESS_EVERY === 0) await progress(report);
  }
}

/**
 * Each imported partner's balance per currency beside the source's: the balances the source
 * states, else the sum of its due commissions (`reader.balances()` null), seen in this run.
 */
async function compareBalances(
  deps: CoreDeps,
  s: ImportScope,
  stated: SourceBalance[] | null,
  due: Map<string, number>,
): Promise<ImportBalanceCheck[]> {
  const source = new Map<string, number>();
  if (stated)
    for (const b of stated) source.set(`${b.partnerSourceId}\u0000${b.currency.toUpperCase()}`, b.amountMinor);
  else for (const [k, v] of due) source.set(k, v);
  const partners = await mappedRows(deps.em, s, 'partner');
  const ours = new Map<string, number>();
  for (const [sourceId, partnerId] of partners)
    for (const b of await readBalances(deps.em, partnerId))
      ours.set(`${sourceId}\u0000${b.currency}`, safeCents(b.balanceCents));
  const keys = [...new Set([...source.keys(), ...ours.keys()])].sort();
  return keys.map((k) => {
    const [partnerSourceId, currency] = k.split('\u0000') as [string, string];
    const sourceCents = source.get(k) ?? 0;
    const partnerId = partners.get(partnerSourceId) ?? null;
    const oursCents = partnerId === null ? null : (ours.get(k) ?? 0);
    return { partnerSourceId, partnerId, currency, sourceCents, oursCents, matches: oursCents === sourceCents };
  });
}
