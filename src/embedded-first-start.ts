import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDb, migrate } from './core/db/orm.ts';

const SELF = fileURLToPath(import.meta.url);

/**
 * The first start of embedded mode (no cluster in DATA_DIR yet) creates the cluster (PGlite's
 * initdb) and applies every migration in a child process that then exits. Done in the service
 * itself, that work left about 300 MiB of freed WebAssembly memory and allocator arenas resident
 * for the process lifetime (bench `embedded-memory`, docs/performance.md). Later starts find the
 * cluster and migrate in process as before. The caller holds the DATA_DIR lock for both.
 * Returns the migrations applied (none when there was nothing to create).
 */
export async function createEmbeddedCluster(dataDir: string): Promise<string[]> {
  if (dataDir.startsWith('memory:') || existsSync(join(dataDir, 'PG_VERSION'))) return [];
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [...process.execArgv.filter((a) => !a.startsWith('--inspect')), SELF, dataDir],
      { timeout: 600_000, maxBuffer: 4 * 2 ** 20 },
      (err, stdout, stderr) => {
        if (err)
          reject(new Error(`creating the embedded database failed: ${stderr.trim().slice(-2000) || err.message}`));
        else resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '[]') as string[]);
      },
    );
  });
}

// Run as the child: create the cluster, migrate, print the applied migrations as JSON.
if (process.argv[1] === SELF) {
  const db = await createDb({ dataDir: process.argv[2]! });
  const applied = await migrate(db);
  await db.orm.close();
  console.log(JSON.stringify(applied));
}
