import type { Logger as PinoLogger } from 'pino';
import type { Config } from './config.ts';
import type { CoreDeps } from './core/deps.ts';
import { createDb, type Db } from './core/db/orm.ts';
import { createReadReplica, type ReadReplica } from './core/db/read-replica.ts';
import { AppError } from './core/shared/errors.ts';

/**
 * The reads the dashboard, exports, statements and the status route make, routed to the read
 * replica (DATABASE_READ_URL) when `core/db/read-replica.ts` says it may serve them, else to the
 * primary. Everything else (tracking, money paths: sales, refunds, the ledger, payouts; every
 * write; authentication) uses `deps()`, always the primary.
 */
export type ReadRouting = {
  /** The replica's router; null without DATABASE_READ_URL (or in embedded mode). */
  replica: ReadReplica | null;
  /** Core dependencies for a read of these keys, on the replica when it may serve them. */
  depsFor(keys: readonly string[]): Promise<{ deps: CoreDeps; onReplica: boolean }>;
  /** Runs a read on the replica when it may, and again on the primary when it fails there. */
  read<T>(keys: readonly string[], fn: (deps: CoreDeps) => Promise<T>): Promise<T>;
  /** A write for these keys was answered (read-your-writes: their reads go to the primary a while). */
  noteWrite(keys: readonly string[]): void;
  /** A read on the replica failed: it is treated as down until the next check. */
  failed(err: unknown): void;
  close(): Promise<void>;
};

/** The read-routing key of a program's data (the dashboard's writes), and of a partner's own (the portal's). */
export const programKey = (programId: number) => `program:${programId}`;
export const partnerKey = (partnerId: number) => `partner:${partnerId}`;
/** The key of an API key's own writes (tracking calls): read back by the status route. */
export const apiKeyKey = (keyId: number) => `key:${keyId}`;

/** Errors the replica cannot be blamed for: answered as they are, never retried on the primary. */
const isAnswer = (err: unknown) => err instanceof AppError;

export async function openReadReplica(
  config: Config,
  primary: Db,
  deps: () => CoreDeps,
  log: PinoLogger,
): Promise<ReadRouting> {
  if (!config.DATABASE_READ_URL || primary.kind !== 'postgresql') {
    if (config.DATABASE_READ_URL) log.warn('DATABASE_READ_URL is ignored in embedded mode (no DATABASE_URL)');
    return {
      replica: null,
      depsFor: async () => ({ deps: deps(), onReplica: false }),
      read: (_keys, fn) => fn(deps()),
      noteWrite() {},
      failed() {},
      async close() {},
    };
  }
  const db = await createDb({
    databaseUrl: config.DATABASE_READ_URL,
    dataDir: config.DATA_DIR,
    poolMax: config.DB_POOL_MAX,
    preparedStatements: config.DB_PREPARED_STATEMENTS,
  });
  const replica = createReadReplica({
    primary: primary.em,
    replica: db.em,
    maxLagMs: config.DATABASE_READ_MAX_LAG_MS,
    log,
  });
  const failed = (err: unknown) => {
    if (!isAnswer(err)) replica.markDown((err as Error)?.message ?? String(err));
  };
  const depsFor = async (keys: readonly string[]) =>
    (await replica.choose(keys)) === 'replica'
      ? { deps: { ...deps(), em: db.em.fork() }, onReplica: true }
      : { deps: deps(), onReplica: false };
  log.info({ maxLagMs: config.DATABASE_READ_MAX_LAG_MS }, 'read replica configured (DATABASE_READ_URL)');
  return {
    replica,
    depsFor,
    async read(keys, fn) {
      const { deps: d, onReplica } = await depsFor(keys);
      if (!onReplica) return fn(d);
      try {
        return await fn(d);
      } catch (err) {
        if (isAnswer(err)) throw err;
        failed(err);
        return fn(deps());
      }
    },
    noteWrite: (keys) => replica.noteWrite(keys),
    failed,
    close: () => db.orm.close(),
  };
}
