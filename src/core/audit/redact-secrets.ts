/** A member whose name says it holds a secret: its value never reaches the audit log. */
const SECRET_NAME =
  /(secret|token|password|passwd|api_?key|^key$|private|credential|signing|totp_secret|totp_code|otpauth|^uri$|hash|invite_url)/i;

export const REDACTED = '[redacted]';

/**
 * A copy of `value` with every secret-named member replaced by `[redacted]`, at any depth, and
 * strings that look like our own secrets (`whsec_…`, `sk_…`, `stf_…`, `pk_…`) redacted wherever
 * they appear. Used for the audit log's before/after.
 */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > 8) return REDACTED;
  if (typeof value === 'string') return /^(whsec_|sk_|stf_|rk_|pk_live_|pk_test_)/.test(value) ? REDACTED : value;
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      out[k] = SECRET_NAME.test(k) && typeof v === 'string' ? REDACTED : redactSecrets(v, depth + 1);
    return out;
  }
  return value;
}
