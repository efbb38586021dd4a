// Every migration, in order. Listed explicitly (no folder globbing) so the same list runs from
// source on Node's type stripping, in tests and in production.
import { Migration20261122023611_initial } from './Migration20261122023611_initial.ts';

export const MIGRATIONS = [Migration20261122023611_initial];
