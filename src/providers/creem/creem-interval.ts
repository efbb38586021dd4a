import type { SubscriptionInterval } from '../../core/shared/vocabulary.ts';
import { readString } from '../read-payload.ts';

/** Creem's `billing_period` (`every-month`, `every-three-months`, `every-year`...) → interval. */
const INTERVALS: Readonly<Record<string, SubscriptionInterval>> = {
  'every-month': 'monthly',
  'every-three-months': 'quarterly',
  'every-year': 'annual',
};

export function computeCreemInterval(billingPeriod: unknown): SubscriptionInterval | null {
  const period = readString(billingPeriod);
  return period !== null && Object.hasOwn(INTERVALS, period) ? (INTERVALS[period] ?? null) : null;
}
