import type { SubscriptionInterval } from '../core/shared/vocabulary.ts';
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

/**
 * The interval of a billing period given as unix seconds (Stripe basil invoice lines, which no
 * longer carry the price's interval). Calendar months vary, so each interval accepts the lengths
 * it can take: a month 28-31 days, a quarter 89-92, a year 365-366. Anything else (a proration
 * covering part of a period) → null.
 */
export function computeIntervalFromPeriod(
  startSeconds: number | null,
  endSeconds: number | null,
): SubscriptionInterval | null {
  if (startSeconds === null || endSeconds === null || endSeconds <= startSeconds) return null;
  const days = Math.round((endSeconds - startSeconds) / 86_400);
  if (days >= 28 && days <= 31) return 'monthly';
  if (days >= 89 && days <= 92) return 'quarterly';
  if (days >= 365 && days <= 366) return 'annual';
  return null;
}
