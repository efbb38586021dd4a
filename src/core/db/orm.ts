import { patchPgPool, type ClientPool } from './pg-driver-patches.ts';
import { MikroORM as PgORM } from '@mikro-orm/postgresql';
import { MikroORM as PgliteORM } from '@mikro-orm/pglite';
import { PGlite } from '@electric-sql/pglite';
import type { MikroORM } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/sql';
import { Migrator } from '@mikro-orm/migrations';
import { mkdirSync } from 'node:fs';
import { ENTITIES } from '../entities/all.ts';
import { MIGRATIONS } from './migrations/list.ts';

export type Db = { orm: MikroORM; em: EntityManager; kind: 'postgresql' | 'pglite' };

export type DbOptions = {
  /** PostgreSQL URL; without it the embedded PGlite database is used. */
  databaseUrl?: string;
  /** PGlite cluster directory, or `memory://` (embedded mode only). */
  dataDir: string;
  poolMax?: number;
  /** Statements compiled once run as named prepared statements (PostgreSQL only; default true). */
  preparedStatements?: boolean;
  debug?: boolean;
};

const common = {
  entities: ENTITIES,
  extensions: [Migrator],
  migrations: {
    migrationsList: MIGRATIONS,
    path: 'src/core/db/migrations',
    pathTs: 'src/core/db/migrations',
    snapshot: false,
    emit: 'ts' as const,
    silent: true,
  },
  // Entities are plain data holders; we never rely on lazy loading across requests.
  forceUtcTimezone: true,
  allowGlobalContext: false,
  ensureDatabase: false,
};

/**
 * Embedded PostgreSQL's memory settings. PGlite runs PostgreSQL inside this process with the server
 * defaults (shared_buffers 128MB, maintenance_work_mem 64MB), sized for a dedicated machine: its
 * WebAssembly memory grows to hold them and never shrinks. A single-process database of one
 * service needs far less (bench `embedded-memory`: docs/performance.md).
 */
export const PGLITE_SETTINGS = [
  'shared_buffers=16MB',
  'wal_buffers=1MB',
  'maintenance_work_mem=16MB',
  'temp_buffers=2MB',
];

/** Opens the database: PostgreSQL when `databaseUrl` is set, otherwise embedded PGlite. */
export async function createDb(opts: DbOptions): Promise<Db> {
  if (opts.databaseUrl) {
    const orm = await PgORM.init({
      ...common,
      clientUrl: opts.databaseUrl,
      pool: { min: 0, max: opts.poolMax ?? 10 },
      driverOptions: {
        // The driver changes (pg-driver-patches.ts): named prepared statements, a dropped
        // connection handed back, and the request paths' bounds.
        onPoolCreated: (pool: ClientPool) =>
          patchPgPool(pool, { preparedStatements: opts.preparedStatements !== false }),
      },
      debug: opts.debug ?? false,
    });
    return { orm, em: orm.em as unknown as EntityManager, kind: 'postgresql' };
  }
  if (!opts.dataDir.startsWith('memory:')) mkdirSync(opts.dataDir, { recursive: true });
  const orm = await PgliteORM.init({
    ...common,
    dbName: opts.dataDir,
    // PGlite's own start parameters, with the settings above added (`-c name=value`).
    driverOptions: { startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS.flatMap((s) => ['-c', s])] },
    debug: opts.debug ?? false,
  });
  return { orm, em: orm.em as unknown as EntityManager, kind: 'pglite' };
}

/** Applies pending migrations (committed in `src/core/db/migrations`); returns their names. */
export async function migrate(db: Db): Promise<string[]> {
  const done = await db.orm.migrator.up();
  return done.map((m) => m.name);
}
