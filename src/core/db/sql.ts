import type { EntityManager, InferKyselyDB } from '@mikro-orm/sql';
import {
  CompiledQuery,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
  type Compilable,
  type Expression,
  type RawBuilder,
} from 'kysely';
import type { ENTITIES } from '../entities/all.ts';
import { registerPreparedStatement } from './pg-driver-patches.ts';

/** The database as Kysely sees it, inferred from the entity definitions (a renamed column fails typecheck). */
export type DB = InferKyselyDB<(typeof ENTITIES)[number]>;

/**
 * Typed SQL on the caller's context: MikroORM's own Kysely instance, bound to the current
 * transaction when there is one. For statements the unit of work cannot express in one round trip.
 */
export function typedSql(em: EntityManager): Kysely<DB> {
  return em.getKysely<DB>();
}

/**
 * A `bigint` amount read exactly. The inferred column type says `number`, but the drivers answer
 * int8 as a string (pg) or a JS bigint (PGlite): money is therefore read as PostgreSQL's own text
 * of it and parsed with `cents` / `bigCents`, never through a float.
 */
export function exactText(e: Expression<unknown>): RawBuilder<string> {
  return sql<string>`(${e})::text`;
}

/** An exact amount read with `exactText`, as a bigint (`null` → 0). */
export function bigCents(text: string | null | undefined): bigint {
  return text == null ? 0n : BigInt(text);
}

/** An exact amount read with `exactText`, as a number; one amount always fits (amounts are at most 2^53 − 1). */
export function cents(text: string | null | undefined): number {
  return safeCents(bigCents(text));
}

/** A bigint amount as a number, refused when it would lose precision. */
export function safeCents(v: bigint): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new Error(`amount out of range: ${v}`);
  return n;
}

/**
 * A timestamp as exact text of milliseconds since the epoch (`dateFromMs` reads it): a Date
 * without parsing either driver's own timestamp strings.
 */
export function epochMs(e: Expression<Date | null>): RawBuilder<string | null> {
  return sql<string | null>`(extract(epoch from ${e}) * 1000)::bigint::text`;
}

/** A timestamp as ISO 8601 UTC text, made by PostgreSQL (the same text whichever driver reads it). */
export const isoText = (e: Expression<Date | null>) =>
  sql<string | null>`to_char(${e} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export function dateFromMs(text: string | null): Date | null {
  return text === null ? null : new Date(Number(text));
}

/** Builds and compiles statements without a connection (both drivers take PostgreSQL's `$n`). */
const compiler = new Kysely<DB>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

const SLOT = '\u0000slot:';

/** A typed statement compiled once; `run` binds this call's values and executes it on `em`. */
export type Statement<P, R> = { sql: string; run(em: EntityManager, params: P): Promise<R[]> };

/**
 * A typed statement compiled once, when its module loads. `build` gets placeholders standing for
 * the values of `P` (each read of `p.x` is the slot `x`) and the SQL text is kept; each run binds
 * the values by name. Building and compiling a statement costs Kysely 50–150 µs of CPU (measured on
 * the sale insert and the customer lookup), more than the rest of a sale's work in this process, so
 * hot paths compile once; the types still check every table and column at `npm run typecheck`.
 * A placeholder is a value only: never inline it (`eb.lit`) or expand it (`in` with an array).
 */
export function compileStatement<P extends object, R>(build: (db: Kysely<DB>, p: P) => Compilable<R>): Statement<P, R> {
  const slots = new Proxy({}, { get: (_, name) => `${SLOT}${String(name)}` }) as P;
  const compiled = build(compiler, slots).compile();
  registerPreparedStatement(compiled.sql); // run as a named prepared statement on PostgreSQL
  const binds = compiled.parameters.map((v) =>
    typeof v === 'string' && v.startsWith(SLOT) ? v.slice(SLOT.length) : { fixed: v },
  );
  return {
    sql: compiled.sql,
    async run(em, params) {
      const values = binds.map((b) => (typeof b === 'string' ? (params as Record<string, unknown>)[b] : b.fixed));
      return (await typedSql(em).executeQuery<R>(CompiledQuery.raw(compiled.sql, values))).rows;
    },
  };
}
