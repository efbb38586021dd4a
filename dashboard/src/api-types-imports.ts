// The dashboard's routes of imports from another tool (the Import page): start one (a dry run or
// the real thing), list a program's runs, read one while it runs, and download its report. Joined
// into the route table by api-types.ts; the types are the server's own (src/http/wire/imports.ts).
import type { z } from 'zod';
import type {
  importRunBody,
  importRunListBody,
  importStartSchema,
  ImportRunWire,
} from '../../src/http/wire/imports.ts';
import type { In, Program, Route } from './api-types-base.ts';

export type { ImportRunWire };
export type ImportRunBody = z.infer<typeof importRunBody>;
export type ImportRunListBody = z.infer<typeof importRunListBody>;

type Import = `${Program}/imports/${number}`;

/** The import routes of the operator's session, by method. */
export type ImportRoutes = {
  GET: Route<`${Program}/imports`, ImportRunListBody> | Route<Import, ImportRunBody>;
  POST: Route<`${Program}/imports`, ImportRunBody, In<typeof importStartSchema>>;
};

/** A run's stored report as a file (with the session cookie). */
export type ImportLinks = `${Import}?download=1`;
