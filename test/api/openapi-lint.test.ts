/**
 * The OpenAPI document passes a lint as well as the validator (openapi.test.ts): Redocly's
 * recommended rules, run from the dev dependency offline, with no error (warnings are listed).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { buildOpenApiDocument } from '../../src/http/openapi/build-document.ts';
import { OPERATIONS } from '../../src/http/openapi/operations.ts';

const run = promisify(execFile);

test('redocly lint (recommended rules): no error', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
  const file = join(dir, 'openapi.json');
  writeFileSync(
    file,
    JSON.stringify(buildOpenApiDocument(OPERATIONS, { version: '0.0.0', serverUrl: 'http://localhost:3000' })),
  );
  const cli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
  const { stdout } = await run(process.execPath, [cli, 'lint', file, '--format=json'], {
    cwd: dir,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    maxBuffer: 64 * 1024 * 1024,
  }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  const report = JSON.parse(stdout) as {
    totals: { errors: number; warnings: number };
    problems: Array<{ ruleId: string; severity: string; message: string }>;
  };
  const errors = report.problems.filter((p) => p.severity === 'error');
  expect(errors).toEqual([]);
  expect(report.totals.errors).toBe(0);
}, 60_000);
