/**
 * `npm install && npm start` on a fresh checkout: the embedded server creates a demo program and
 * says how to reach the dashboard and where the admin token it generated is kept. A real process.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, vi } from 'vitest';
import { runProcess } from '../helpers/run-process.ts';

vi.setConfig({ testTimeout: 240_000 });

test('first start: demo keys, the dashboard URL and the admin token file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'first-start-'));
  const p = runProcess(process.execPath, ['src/main.ts'], {
    DATA_DIR: dir,
    HOST: '127.0.0.1',
    PORT: '0',
    DEMO_SEED: 'true',
    LOG_FORMAT: 'json',
  });
  try {
    await p.waitForOutput(/dashboard: /, 180_000);
    const out = p.output();
    expect(out).toMatch(/live key: trk_live_/);
    const tokenFile = join(dir, 'admin-token');
    expect(out).toContain(`dashboard: http://127.0.0.1:`);
    expect(out).toMatch(
      new RegExp(`/dashboard \\(sign in with the token in ${tokenFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`),
    );
    // The token itself is in the file, never in the output.
    const token = readFileSync(tokenFile, 'utf8').trim();
    expect(token.length).toBeGreaterThanOrEqual(32);
    expect(out).not.toContain(token);
  } finally {
    await p.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
