// The building blocks of the dashboard's route table (api-types.ts and its parts by area, such as
// api-types-imports.ts): a route's shape, the path patterns the routes share, and the lookups the
// API client (api.ts) types each call with. Type-only, like the table itself.
import type { z } from 'zod';

/**
 * A route: its path pattern (`${number}` for an id), the body it answers with and, for a write,
 * the body it takes (`NoBody`: it reads none; the client sends `{}`).
 */
export type Route<Path extends string, Body, Input = NoBody> = { path: Path; body: Body; input: Input };
export type NoBody = Record<string, never>;
/** What a request schema accepts. */
export type In<S extends z.ZodType> = z.input<S>;
/** The path with or without a query string. */
export type Query<P extends string> = P | `${P}?${string}`;

/** One program's admin routes start here. */
export type Program = `/api/v1/admin/programs/${number}`;

/** The paths a set of routes answers. */
export type PathOf<R> = R extends Route<infer P, unknown, unknown> ? P : never;
/** The body of the route a path (or each of a union of paths) matches. */
export type BodyOf<R, P extends string> = P extends unknown
  ? R extends Route<infer Path, infer Body, unknown>
    ? P extends Path
      ? Body
      : never
    : never
  : never;
/** What the route a path (or each of a union of paths) matches takes. */
export type InputOf<R, P extends string> = P extends unknown
  ? R extends Route<infer Path, unknown, infer Input>
    ? P extends Path
      ? Input
      : never
    : never
  : never;
