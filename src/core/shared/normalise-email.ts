import normalizeEmailModule from 'validator/lib/normalizeEmail.js';

type NormalizeEmail = (email: string, options?: { yahoo_remove_subaddress?: boolean }) => string | false;
// The one function's CommonJS file, not the whole library. Its `module.exports` is the function and
// carries itself as `.default`; Node's resolution types the import as the latter, a bundler's as the
// former (the dashboard type-checks this file through shared types), so either is taken.
const loaded = normalizeEmailModule as unknown as NormalizeEmail & { default?: NormalizeEmail };
const normalizeEmail: NormalizeEmail = loaded.default ?? loaded;

/**
 * The mailbox an address delivers to, as far as it can be told from the address alone: the form
 * lead emails are hashed in (email-hash.ts) and the self-referral rule compares.
 *
 * - surrounding spaces dropped, all lower case (local parts are case-insensitive at every large
 *   provider, though RFC 5321 allows otherwise);
 * - trailing dots of the domain dropped (`gmail.com.` is the same host written as a root name);
 * - a `+tag` dropped at every domain: Gmail, Outlook, iCloud, Fastmail, Proton and the Google and
 *   Microsoft business mail behind custom domains all deliver `name+tag@` to `name@`, and a
 *   mailbox genuinely named with a `+` is rare enough that a review (a held commission) is the
 *   cheaper mistake;
 * - then validator's provider rules: dots in a Gmail local part ignored, `googlemail.com` read as
 *   `gmail.com`, the Yandex domains as one. Its Yahoo rule (drop the last `-part`) is off: Yahoo's
 *   `base-keyword` addresses use a chosen base name, not the account's, so it only merges
 *   different people such as `mary-jane@` and `mary@`.
 *
 * Something that is not `local@domain` is returned trimmed and lower-cased, compared as it is.
 */
export function normaliseEmail(email: string): string {
  const trimmed = email.trim().toLowerCase();
  const at = trimmed.lastIndexOf('@');
  if (at < 1) return trimmed;
  const domain = trimmed.slice(at + 1).replace(/\.+$/, '');
  const local = trimmed.slice(0, at);
  const untagged = local.split('+')[0] || local;
  if (!domain) return trimmed;
  return normalizeEmail(`${untagged}@${domain}`, { yahoo_remove_subaddress: false }) || `${untagged}@${domain}`;
}
