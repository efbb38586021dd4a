import { describe, expect, test } from 'vitest';
import { checkRules, formToRules, rulesToForm } from '../../dashboard/src/rules/reward-form.ts';
import {
  formToFraud,
  formToPayout,
  fraudToForm,
  payoutToForm,
  settingsFromJson,
} from '../../dashboard/src/rules/settings-forms.ts';
import { fraudRulesSchema } from '../../src/core/entities/program-rules.ts';
import { describeTerms, tierStanding } from '../../dashboard/src/rules/describe-terms.ts';
import { acceptedCurrencies } from '../../dashboard/src/currencies.ts';
import { DEFAULT_PAYOUT_SETTINGS, payoutSettingsSchema } from '../../src/core/entities/payout-settings.ts';
import type { RewardRules } from '../../src/core/entities/program-rules.ts';

const FIFTY_THEN_THIRTY: RewardRules = {
  first_sale: { type: 'flat', amounts: { USD: 5_000 } },
  sale: { type: 'percent', bps: 3_000 },
  recurring: { policy: 'months', months: 12 },
};
const BASE = { commissionRateBps: 1_000, recurringPolicy: 'lifetime' as const, recurringMonths: null };

describe('reward rules form', () => {
  test.each([
    ['first-sale, percent and renewals', FIFTY_THEN_THIRTY],
    [
      'products, tiers on revenue and a lead reward',
      {
        products: { pro: { type: 'flat', amounts: { EUR: 1_250, VND: 50_000 } } },
        tiers: {
          metric: 'revenue',
          period: 'last_30_days',
          steps: [{ from: 100_000, reward: { type: 'percent', bps: 1_250 } }],
        },
        lead: { currency: 'VND', cents: 20_000 },
      },
    ],
    ['nothing: the program rate alone', null],
  ] as Array<[string, RewardRules | null]>)('%s: form and back give the same document', (_l, rules) => {
    expect(formToRules(rulesToForm(rules))).toEqual({ rules, errors: {} });
  });

  test('percent in the form, basis points in the document; money in the form, minor units in it', () => {
    const form = rulesToForm(null);
    form.sale = { ...form.sale, kind: 'percent', percent: '12.5' };
    form.firstSale = { ...form.firstSale, kind: 'flat', amounts: { USD: '49.99', EUR: '', VND: '1,000' } };
    expect(formToRules(form).rules).toEqual({
      first_sale: { type: 'flat', amounts: { USD: 4_999, VND: 1_000 } },
      sale: { type: 'percent', bps: 1_250 },
    });
  });

  test('revenue tiers are typed in a currency of the program: a VND program types dong, a USD one dollars', () => {
    const vnd = rulesToForm({ lead: { currency: 'VND', cents: 20_000 } });
    expect(vnd.tiers.unit).toBe('VND');
    vnd.tiers.metric = 'revenue';
    vnd.tiers.steps.push({ from: '1,000,000', reward: { ...vnd.sale, kind: 'percent', percent: '20' } });
    expect(formToRules(vnd).rules?.tiers?.steps).toEqual([
      { from: 1_000_000, reward: { type: 'percent', bps: 2_000 } },
    ]);
    const usd = rulesToForm(null);
    expect(usd.tiers.unit).toBe('USD');
    usd.tiers.metric = 'revenue';
    usd.tiers.steps.push({ from: '1000', reward: { ...usd.sale, kind: 'percent', percent: '20' } });
    expect(formToRules(usd).rules?.tiers?.steps?.[0]?.from).toBe(100_000);
    // Shown again in the unit it was typed in.
    expect(rulesToForm(formToRules(vnd).rules).tiers.steps[0]?.from).toBe('1000000');
  });

  test('a flat amount in an opt-in currency (JPY, no decimals; KWD, three) reads into minor units', () => {
    acceptedCurrencies.value = ['USD', 'JPY', 'KWD'];
    try {
      const form = rulesToForm(null);
      expect(Object.keys(form.sale.amounts)).toEqual(['USD', 'JPY', 'KWD']);
      form.sale = { ...form.sale, kind: 'flat', amounts: { USD: '', JPY: '500', KWD: '1.25' } };
      expect(formToRules(form).rules?.sale).toEqual({ type: 'flat', amounts: { JPY: 500, KWD: 1_250 } });
      // A stored amount in a currency no longer accepted stays visible (and kept).
      const back = rulesToForm({ sale: { type: 'flat', amounts: { EUR: 900 } } });
      expect(back.sale.amounts).toMatchObject({ EUR: '9', JPY: '' });
    } finally {
      acceptedCurrencies.value = ['USD', 'EUR', 'VND'];
    }
  });

  test.each([
    [
      'a percentage over 100',
      (f: ReturnType<typeof rulesToForm>) => (f.sale = { ...f.sale, kind: 'percent', percent: '130' }),
      'sale.bps',
      'Enter a percentage between 0 and 100.',
    ],
    [
      'a word for a percentage',
      (f: ReturnType<typeof rulesToForm>) => (f.sale = { ...f.sale, kind: 'percent', percent: 'thirty' }),
      'sale.bps',
      'Enter the percentage as a number.',
    ],
    [
      'zero months of renewals (the schema refuses it)',
      (f: ReturnType<typeof rulesToForm>) => (f.recurring = { policy: 'months', months: '0' }),
      'recurring.months',
      'The number of months must be at least 1.',
    ],
    [
      'a flat reward with no amount (the schema refuses it)',
      (f: ReturnType<typeof rulesToForm>) => (f.firstSale = { ...f.firstSale, kind: 'flat' }),
      'first_sale.amounts',
      'The first-sale reward: name an amount in at least one currency.',
    ],
    [
      'a tier step without a reward',
      (f: ReturnType<typeof rulesToForm>) => f.tiers.steps.push({ from: '3', reward: rulesToForm(null).sale }),
      'tiers.steps.0.reward',
      'Choose the reward from this step.',
    ],
  ])('%s: a sentence beside the field, no document', (_l, edit, key, sentence) => {
    const form = rulesToForm(null);
    edit(form);
    const r = formToRules(form);
    expect(r.rules).toBeNull();
    expect(r.errors[key]).toBe(sentence);
  });

  test('the JSON view: unknown keys and wrong types in plain words', () => {
    expect(checkRules({ sale: { type: 'percent', bps: 3_000 }, bonus: 1 }).errors).toEqual({
      '': 'This service does not know these settings in the rules: bonus.',
    });
    expect(checkRules({ recurring: { policy: 'months', months: 'twelve' } }).errors).toEqual({
      'recurring.months': 'The number of months must be a number.',
    });
    expect(checkRules({ recurring: { policy: 'months' } }).errors).toEqual({
      'recurring.months': 'The number of months is missing.',
    });
  });
});

describe('settings forms', () => {
  test('fraud rules: minutes in the form, seconds in the document; nothing on is null', () => {
    const form = fraudToForm(null);
    expect(formToFraud(form)).toEqual({ doc: null, errors: {} });
    form.fastMinutes = '60';
    form.disposableEmail = true;
    expect(formToFraud(form).doc).toEqual({ disposable_email: true, fast_conversion_seconds: 3_600 });
    expect(formToFraud(fraudToForm({ fast_conversion_seconds: 90 })).doc).toEqual({ fast_conversion_seconds: 90 });
    form.spike = true;
    form.spikeFactor = '1';
    expect(formToFraud(form).errors['click_spike.factor']).toBe('The click spike factor must be at least 1.5.');
  });

  test('payout settings: money minimums, the defaults stored as null, a day past the 28th refused', () => {
    const form = payoutToForm(null);
    expect(formToPayout(form)).toEqual({ doc: null, errors: {} });
    form.rail = 'wise';
    form.minimum.EUR = '20';
    expect(formToPayout(form).doc).toEqual({
      rail: 'wise',
      minimum_cents: { EUR: 2_000 },
      schedule: 'manual',
      day_of_month: 1,
      hold_days: 0,
      partner_requests: false,
    });
    // Partner requests, switched on through the API, survive the form.
    const on = payoutToForm({ ...DEFAULT_PAYOUT_SETTINGS, partner_requests: true });
    expect(on.partnerRequests).toBe(true);
    expect(formToPayout(on).doc).toMatchObject({ partner_requests: true });
    form.dayOfMonth = '31';
    expect(formToPayout(form).errors.day_of_month).toBe('The day of the month must be at most 28.');
  });
});

describe('advanced JSON view of the settings', () => {
  test('valid JSON fills the form; bad JSON and a schema refusal come back as sentences', () => {
    const ok = settingsFromJson(fraudRulesSchema, '{"self_referral": true, "fast_conversion_seconds": 120}');
    expect(ok.errors).toEqual({});
    expect(fraudToForm(ok.doc)).toMatchObject({ selfReferral: true, fastMinutes: '2' });
    expect(settingsFromJson(fraudRulesSchema, '{"self_referral": tru').errors['']).toMatch(/^This is not JSON/);
    const refused = settingsFromJson(payoutSettingsSchema, '{"day_of_month": 31}');
    expect(refused.doc).toBeNull();
    expect(refused.errors.day_of_month).toBe('The day of the month must be at most 28.');
    expect(settingsFromJson(payoutSettingsSchema, '  ')).toEqual({ doc: null, errors: {} });
  });
});

describe('terms in words', () => {
  test('the first-sale reward, then renewals for 12 months', () => {
    expect(describeTerms(FIFTY_THEN_THIRTY, BASE)).toEqual([
      "50.00 USD on each customer's first payment, then 30 % of each later payment.",
      'Renewals earn for 12 months after the first payment.',
    ]);
  });
  test('no rules: the program rate and its recurring policy', () => {
    expect(describeTerms(null, { ...BASE, recurringPolicy: 'one_time' })).toEqual([
      '10 % of each sale.',
      'Renewals earn nothing: only the first payment of a subscription counts.',
    ]);
  });
  test.each([
    [0, 'You are below the first tier; the next tier starts at 2 sales.'],
    [3, 'You are in tier 1 of 2 (40 % of each sale); the next tier starts at 5 sales.'],
    [9, 'You are in tier 2 of 2 (50 % of each sale): the top tier.'],
  ])('tier standing at %i sales', (value, text) => {
    const tiers = {
      metric: 'sales' as const,
      period: 'calendar_month' as const,
      steps: [
        { from: 2, reward: { type: 'percent' as const, bps: 4_000 } },
        { from: 5, reward: { type: 'percent' as const, bps: 5_000 } },
      ],
    };
    expect(tierStanding(tiers, value)).toBe(text);
  });
});
