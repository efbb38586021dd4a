// The fraud rules and payout settings editors' forms and the documents they stand for: minutes and
// money in the form, seconds and minor units on the wire; checked by the server's own schemas,
// with every issue as a sentence next to its field (plain-issues.ts).
import type { z } from 'zod';
import { fraudRulesSchema, type FraudRules } from '../../../src/core/entities/program-rules.ts';
import {
  DEFAULT_PAYOUT_SETTINGS,
  payoutSettingsSchema,
  type PayoutSettings,
} from '../../../src/core/entities/payout-settings.ts';
import { minorUnitDigits } from '../../../src/core/shared/money.ts';
import type { Currency, PayoutRail } from '../vocabulary.ts';
import { amountFields } from '../currencies.ts';
import { plainIssues } from './plain-issues.ts';
import { toMajor } from './reward-form.ts';

export type FraudForm = {
  selfReferral: boolean;
  disposableEmail: boolean;
  /** Minutes; empty: off. */
  fastMinutes: string;
  spike: boolean;
  spikeFactor: string;
  spikeHours: string;
  spikeMinClicks: string;
};
export type PayoutForm = {
  rail: PayoutRail;
  minimum: Record<Currency, string>;
  schedule: 'manual' | 'monthly';
  dayOfMonth: string;
  holdDays: string;
  /** Partners may ask for a payout in the portal. */
  partnerRequests: boolean;
};
type Checked<T> = { doc: T | null; errors: Record<string, string> };

/** A number typed by a person ("1,000" too), or an error sentence under `key`. */
function reader(errors: Record<string, string>) {
  return (text: string, key: string, what: string): number => {
    const n = Number(text.trim().replace(/,/g, ''));
    if (text.trim() === '' || !Number.isFinite(n)) errors[key] ??= `Enter ${what} as a number.`;
    return n;
  };
}
function check<T>(schema: z.ZodType<T>) {
  return (doc: unknown, errors: Record<string, string>): Checked<T> => {
    if (Object.keys(errors).length) return { doc: null, errors };
    if (doc === null) return { doc: null, errors };
    const r = schema.safeParse(doc);
    return r.success ? { doc: r.data, errors } : { doc: null, errors: plainIssues(r.error) };
  };
}

export function fraudToForm(r: FraudRules | null): FraudForm {
  return {
    selfReferral: r?.self_referral ?? false,
    disposableEmail: r?.disposable_email ?? false,
    fastMinutes: r?.fast_conversion_seconds ? String(r.fast_conversion_seconds / 60) : '',
    spike: !!r?.click_spike,
    spikeFactor: r?.click_spike ? String(r.click_spike.factor) : '5',
    spikeHours: String(r?.click_spike?.window_hours ?? 24),
    spikeMinClicks: String(r?.click_spike?.min_clicks ?? 100),
  };
}

/** The fraud rules the form stands for (null: none switched on). */
export function formToFraud(f: FraudForm): Checked<FraudRules> {
  const errors: Record<string, string> = {};
  const num = reader(errors);
  const doc: FraudRules = {};
  if (f.selfReferral) doc.self_referral = true;
  if (f.disposableEmail) doc.disposable_email = true;
  if (f.fastMinutes.trim()) {
    const minutes = num(f.fastMinutes, 'fast_conversion_seconds', 'the minutes');
    if (minutes < 1 / 60 || minutes > 1_440)
      errors.fast_conversion_seconds ??= 'Enter a time between 1 second (0.02) and 1,440 minutes (a day).';
    doc.fast_conversion_seconds = Math.round(minutes * 60);
  }
  if (f.spike)
    doc.click_spike = {
      factor: num(f.spikeFactor, 'click_spike.factor', 'the factor'),
      window_hours: num(f.spikeHours, 'click_spike.window_hours', 'the hours'),
      min_clicks: num(f.spikeMinClicks, 'click_spike.min_clicks', 'the number of clicks'),
    };
  return check<FraudRules>(fraudRulesSchema)(Object.keys(doc).length ? doc : null, errors);
}

export function payoutToForm(p: PayoutSettings | null): PayoutForm {
  return {
    rail: p?.rail ?? 'manual',
    minimum: amountFields(p?.minimum_cents, toMajor),
    schedule: p?.schedule ?? 'manual',
    dayOfMonth: String(p?.day_of_month ?? 1),
    holdDays: String(p?.hold_days ?? 0),
    partnerRequests: p?.partner_requests ?? false,
  };
}

/** The payout settings the form stands for (null when they are the defaults: manual, no minimum). */
export function formToPayout(f: PayoutForm): Checked<PayoutSettings> {
  const errors: Record<string, string> = {};
  const num = reader(errors);
  const minimum: Partial<Record<Currency, number>> = {};
  for (const [c, text] of Object.entries(f.minimum)) {
    if (text.trim())
      minimum[c] = Math.round(num(text, `minimum_cents.${c}`, `the minimum in ${c}`) * 10 ** minorUnitDigits(c));
  }
  const doc = {
    rail: f.rail,
    minimum_cents: minimum,
    schedule: f.schedule,
    day_of_month: num(f.dayOfMonth, 'day_of_month', 'the day'),
    hold_days: num(f.holdDays, 'hold_days', 'the days'),
    partner_requests: f.partnerRequests,
  };
  const r = check<PayoutSettings>(payoutSettingsSchema)(doc, errors);
  return JSON.stringify(r.doc) === JSON.stringify(DEFAULT_PAYOUT_SETTINGS) ? { doc: null, errors: r.errors } : r;
}

/** A JSON document typed in the advanced view, checked by the server's schema: the settings, or sentences. */
export function settingsFromJson<T>(schema: z.ZodType<T>, text: string): Checked<T> {
  if (!text.trim()) return { doc: null, errors: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { doc: null, errors: { '': `This is not JSON: ${(err as Error).message}` } };
  }
  return check(schema)(value, {});
}
