import { randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';
import type { PasswordHasher } from '../core/programs/partner-invites.ts';

/** bcrypt cost: 2^11 rounds, above the OWASP minimum of 10, a fraction of a second per sign-in. */
const COST = 11;

let standIn: Promise<string> | null = null;

/** Portal passwords hashed with bcrypt (bcryptjs: pure JavaScript, no native build). */
export const bcryptHasher: PasswordHasher = {
  hash: (password) => bcrypt.hash(password, COST),
  verify: (password, hash) => bcrypt.compare(password, hash),
  // Made once per process, at the cost real hashes use (a constant hash would keep an old cost).
  standIn: () => (standIn ??= bcrypt.hash(randomBytes(32).toString('hex'), COST)),
};
