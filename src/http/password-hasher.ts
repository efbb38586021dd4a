import bcrypt from 'bcryptjs';
import type { PasswordHasher } from '../core/partner-invites.ts';

/** bcrypt cost: 2^11 rounds, above the OWASP minimum of 10, a fraction of a second per sign-in. */
const COST = 11;

/** Portal passwords hashed with bcrypt (bcryptjs: pure JavaScript, no native build). */
export const bcryptHasher: PasswordHasher = {
  hash: (password) => bcrypt.hash(password, COST),
  verify: (password, hash) => bcrypt.compare(password, hash),
};
