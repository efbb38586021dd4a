import type { SubscriptionInterval } from '../core/vocabulary.ts';
import { readInteger, readString } from './read-payload.ts';

/**
 * Maps a provider billing cycle (Stripe `recurring.interval` + `interval_count`, Paddle
 * `billing_cycle.interval` + `frequency`) onto the spec's three intervals; anything else → null.
 */
export function computeSubscriptionInterval(unit: unknown, count: unknown): SubscriptionInterval | null {
  const name = readString(unit);
  const months = name === 'month' ? 1 : name === 'year' ? 12 : null;
  const times = count === undefined || count === null ? 1 : readInteger(count);
  if (months === null || times === null) return null;
  const total = months * times;
  if (total === 1) return 'monthly';
  if (total === 3) return 'quarterly';
  if (total === 12) return 'annual';
  return null;
}
