/**
 * The soak's settings, from the environment. Defaults: a full run, 10,000 faults within 22 minutes
 * under a small load (4 clients). A development run: `SOAK_FAULTS=300 SOAK_MINUTES=1 npm run soak`.
 */
const num = (name: string, fallback: number): number => {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got ${v}`);
  return n;
};

const faults = Math.round(num('SOAK_FAULTS', 10_000));
const minutes = num('SOAK_MINUTES', 22);

export const SOAK = {
  /** Faults to inject; the run fails if fewer were. */
  faults,
  /** The longest the load and the faults last (the drain and the checks come after). */
  minutes,
  /** Clients of the steady load, half API sales and half Stripe checkouts. */
  clients: Math.round(num('SOAK_CLIENTS', 4)),
  /** A client's pause between two operations (the load's pace: about 30 requests a second). */
  pauseMs: Math.round(num('SOAK_PAUSE_MS', 150)),
  /** Faults spread over 90% of the time allowed, so the target is reached inside it. */
  intervalMs: Math.floor((minutes * 60_000 * 0.9) / faults),
};
