/**
 * Embedded mode is single-writer: PGlite is one process's database, and two `npm start` on one
 * DATA_DIR used to both answer 200 while only one's writes survived. Real processes throughout.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { freePort } from '../helpers/service-process.ts';
import { runProcess, runToExit, type RunningProcess } from '../helpers/run-process.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'lock-'));
const started: RunningProcess[] = [];
afterAll(async () => {
  await Promise.all(started.map((p) => p.stop('SIGKILL')));
  rmSync(dataDir, { recursive: true, force: true });
});

/** `node src/main.ts [role]` in embedded mode on our data directory. */
async function serve(port: number): Promise<RunningProcess> {
  const p = runProcess(process.execPath, ['src/main.ts'], {
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_FORMAT: 'json',
  });
  started.push(p);
  await p.waitForOutput(/HTTP server listening/, 180_000);
  return p;
}
const embedded = { DATA_DIR: dataDir, HOST: '127.0.0.1', LOG_FORMAT: 'json' };

test("a second process on the same DATA_DIR exits at once naming the directory and the holder; a killed holder's lock is taken over", async () => {
  const first = await serve(await freePort());

  const second = await runToExit(process.execPath, ['src/main.ts'], { ...embedded, PORT: String(await freePort()) });
  expect(second.code).toBe(1);
  expect(second.output).toContain(dataDir);
  expect(second.output).toContain(`process ${first.pid}`);

  // Migrations open the same database: refused too.
  const migrate = await runToExit(process.execPath, ['src/main.ts', 'migrate'], embedded);
  expect(migrate.code).toBe(1);
  expect(migrate.output).toContain(`process ${first.pid}`);

  // kill -9 leaves the lock directory behind; the next start waits for it to go stale, then takes it.
  await first.stop('SIGKILL');
  expect(existsSync(join(dataDir, 'server.lock'))).toBe(true);
  const third = await serve(await freePort());

  // A clean stop releases the lock, so the next start does not wait.
  expect(await third.stop('SIGTERM')).toBe(0);
  expect(existsSync(join(dataDir, 'server.lock'))).toBe(false);
  const fourth = await serve(await freePort());
  await fourth.stop('SIGTERM');
}, 600_000);
