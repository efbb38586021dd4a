import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { getImportRun, listImportRuns } from '../../core/imports/import-runs.ts';
import { runImport, startImportRun } from '../../core/imports/run-import.ts';
import { createReader } from '../../importers/registry.ts';
import { AppError } from '../../core/shared/errors.ts';
import { checkEndpointUrl } from '../../core/outbound/endpoints.ts';
import { json } from '../route.ts';
import { validate } from '../validate.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import { importRunBody, importRunListBody, importRunToWire, importStartSchema } from '../wire/imports.ts';
import type { AdminHelpers } from './admin-helpers.ts';

/**
 * Imports from another tool (docs/moving-from-rewardful.md): start one (it runs in the background
 * of this process, the API key held in memory only, never stored or logged; or from the source's
 * CSV files, where it documents their layout), list them, read one's report (a JSON download with
 * `?download=1`). A `base_url` (the source's API elsewhere than its public address) passes the
 * outbound URL guard first, as an event endpoint's URL does.
 *   POST /programs/:id/imports  {source, api_key | csv, base_url?, dry_run?} → 202 {import}
 *   GET  /programs/:id/imports                                         → {imports}
 *   GET  /programs/:id/imports/:importId                               → {import}
 */
export function registerImportRoutes(ctx: RouteContext, { on, num, body }: AdminHelpers): void {
  on('post', '/programs/:id/imports', async (e) => {
    const b = validate(importStartSchema, await body(e));
    const programId = num(e, 'id');
    if (!b.api_key === !b.csv)
      throw new AppError('invalid_request', 'Give api_key or csv (the CSV files by name), one of the two', {
        field: 'api_key',
      });
    // The source's address is one more outbound URL: the guard of event endpoints checks it now,
    // and again at every connection the reader opens (ctx.sourceFetch).
    if (b.base_url) await checkEndpointUrl(ctx.deps(), b.base_url, 'base_url');
    let reader;
    try {
      reader = createReader(b.source, {
        ...(b.api_key && { apiKey: b.api_key }),
        ...(b.csv && { csv: b.csv }),
        ...(b.base_url && { baseUrl: b.base_url }),
        fetch: ctx.sourceFetch,
      });
    } catch (err) {
      throw new AppError('invalid_request', (err as Error).message, { field: b.csv ? 'csv' : 'source' });
    }
    const dryRun = b.dry_run ?? false;
    const run = await startImportRun(ctx.deps(), programId, b.source, dryRun);
    // Not awaited: the caller polls the run. A process stopped midway leaves it `running`; started
    // again, an import skips what it already applied.
    runImport(ctx.deps(), programId, reader, { dryRun, runId: run.id }).catch((err: unknown) =>
      ctx.log.warn({ programId, importId: run.id, err: (err as Error).message }, 'import failed'),
    );
    return json({ import: importRunToWire(run) }, 202);
  });
  on('get', '/programs/:id/imports', async (e) => ({
    imports: (await listImportRuns(ctx.deps(), num(e, 'id'))).map(importRunToWire),
  }));
  on('get', '/programs/:id/imports/:importId', async (e) => {
    const out = { import: importRunToWire(await getImportRun(ctx.deps(), num(e, 'id'), num(e, 'importId'))) };
    if (e.url.searchParams.get('download') !== '1') return out;
    return json(out, 200, { 'content-disposition': `attachment; filename="import-${out.import.id}.json"` });
  });
}

const id = z.number().int().positive();

export const importOperations = [
  adminOperation('post', '/programs/:id/imports', 'startImport', 'Import a program from another tool', {
    params: { id },
    body: importStartSchema,
    description:
      "Starts reading the source with the API key (kept in memory while the import runs, never stored), or its CSV files where the source documents their layout (Rewardful's import sheet: `csv.affiliates`; an unreadable file is refused here), and applying what it reads; poll the import for its report. A dry run writes nothing and reports what would be created. A `base_url` goes through the outbound URL guard of event endpoints: it must be `https://` and reach a public address unless OUTBOUND_ALLOW_HOSTS lists its host; otherwise 400 url_not_allowed with details.field base_url and details.reason.",
    errors: ['not_found', 'invalid_request', 'url_not_allowed'],
    responses: { 202: { description: 'Started', schema: importRunBody } },
  }),
  adminOperation('get', '/programs/:id/imports', 'listImports', "A program's imports, newest first", {
    params: { id },
    responses: { 200: { description: 'The imports with their reports', schema: importRunListBody } },
  }),
  adminOperation('get', '/programs/:id/imports/:importId', 'getImport', 'One import and its report', {
    params: { id, importId: id },
    query: z.object({ download: z.enum(['1']).optional() }),
    description:
      "Counts created, skipped and problems per kind, each problem row, and each partner balance beside the source's. `download=1` answers it as a file.",
    errors: ['not_found'],
    responses: { 200: { description: 'The import', schema: importRunBody } },
  }),
];
