/**
 * The admin CLI against a real service on a random port: `node src/cli/admin.ts … --url <service>`
 * with the admin token in its environment, its JSON output parsed.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ADMIN_TOKEN, createHarness, type Harness } from '../helpers/harness.ts';

export const run = promisify(execFile);

/** A harness listening on a random port, and its URL. */
export async function startCliTarget(): Promise<{ h: Harness; url: string }> {
  const h = await createHarness();
  return { h, url: await h.listen() };
}

/** Runs the admin CLI against `url()` with the admin token; resolves with its parsed output. */
export const adminCli =
  (url: () => string) =>
  async (...args: string[]) => {
    const { stdout } = await run(process.execPath, ['src/cli/admin.ts', ...args, '--url', url()], {
      env: { ...process.env, ADMIN_TOKEN },
    });
    return JSON.parse(stdout);
  };
