import { z } from 'zod';
import type { IImportRun } from '../../core/entities/import-run.ts';
import { IMPORT_SOURCES } from '../../core/imports/import-records.ts';

/**
 * `POST /programs/:id/imports`: the source, the merchant's API key there (never stored) or the
 * text of its CSV files by name (where the source documents a layout), a dry run.
 */
export const importStartSchema = z.strictObject({
  source: z.enum(IMPORT_SOURCES),
  api_key: z.string().min(1).max(500).optional(),
  csv: z
    .record(z.string().regex(/^[a-z][a-z0-9_-]{0,39}$/), z.string().max(10_485_760))
    .optional()
    .describe(
      "The source's CSV files by name without `.csv` (Rewardful: `affiliates`, its import sheet), instead of `api_key`; the body limit is `BODY_LIMIT_BYTES`",
    ),
  base_url: z
    .url({ protocol: /^https?$/ })
    .max(500)
    .optional(),
  dry_run: z.boolean().optional(),
});

const counts = z.strictObject({ created: z.number().int(), skipped: z.number().int(), problems: z.number().int() });

/** An import run and its report, as the admin API shows it. */
export const importRunRow = z.strictObject({
  id: z.number().int(),
  program: z.number().int(),
  source: z.string(),
  dry_run: z.boolean(),
  status: z.enum(['running', 'finished', 'failed']),
  created_count: z.number().int(),
  skipped_count: z.number().int(),
  problem_count: z.number().int(),
  error: z.string().nullable(),
  started_at: z.iso.datetime(),
  finished_at: z.iso.datetime().nullable(),
  report: z.strictObject({
    counts: z.record(z.string(), counts),
    problems: z.array(z.strictObject({ of: z.string(), source_id: z.string().nullable(), reason: z.string() })),
    balances: z.array(
      z.strictObject({
        partner_source_id: z.string(),
        partner_id: z.number().int().nullable(),
        currency: z.string(),
        source_cents: z.number().int(),
        ours_cents: z.number().int().nullable(),
        matches: z.boolean(),
      }),
    ),
  }),
});
export type ImportRunWire = z.infer<typeof importRunRow>;
export const importRunBody = z.strictObject({ import: importRunRow });
export const importRunListBody = z.strictObject({ imports: z.array(importRunRow) });

export function importRunToWire(r: IImportRun): ImportRunWire {
  return {
    id: r.id,
    program: r.program,
    source: r.source,
    dry_run: r.dryRun,
    status: r.status,
    created_count: r.createdCount,
    skipped_count: r.skippedCount,
    problem_count: r.problemCount,
    error: r.error ?? null,
    started_at: new Date(r.startedAt).toISOString(),
    finished_at: r.finishedAt ? new Date(r.finishedAt).toISOString() : null,
    report: {
      counts: r.report.counts,
      problems: r.report.problems.map((p) => ({ of: p.of, source_id: p.sourceId, reason: p.reason })),
      balances: r.report.balances.map((b) => ({
        partner_source_id: b.partnerSourceId,
        partner_id: b.partnerId,
        currency: b.currency,
        source_cents: b.sourceCents,
        ours_cents: b.oursCents,
        matches: b.matches,
      })),
    },
  };
}
