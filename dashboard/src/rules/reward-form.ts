// The reward rules editor's form and the rules document it stands for: percentages in percent
// (basis points on the wire), amounts in the currency's own unit (minor units on the wire). What
// the form cannot turn into a number, and what the server's schema refuses, comes back as
// sentences keyed by field (plain-issues.ts).
import { rewardRulesSchema, type Reward, type RewardRules } from '../../../src/core/entities/program-rules.ts';
import { minorUnitDigits } from '../../../src/core/shared/money.ts';
import type { Currency } from '../vocabulary.ts';
import { acceptedCurrencies, amountFields } from '../currencies.ts';
import { plainIssues } from './plain-issues.ts';

export type RewardForm = { kind: 'none' | 'percent' | 'flat'; percent: string; amounts: Record<Currency, string> };
export type RulesForm = {
  firstSale: RewardForm;
  sale: RewardForm;
  products: Array<{ id: string; reward: RewardForm }>;
  tiers: {
    metric: 'sales' | 'revenue';
    /** The currency whose decimals the revenue figures are typed in (the form's only: the rules store minor units). */
    unit: Currency;
    period: 'calendar_month' | 'last_30_days';
    steps: Array<{ from: string; reward: RewardForm }>;
  };
  lead: { currency: Currency; amount: string };
  recurring: { policy: 'program' | 'one_time' | 'months' | 'lifetime'; months: string };
};

const noAmounts = (): Record<Currency, string> => amountFields(undefined, toMajor);
export const emptyReward = (): RewardForm => ({ kind: 'none', percent: '', amounts: noAmounts() });

/** Minor units as the currency's own unit for an input: 5000 USD is "50", 5050 is "50.5". */
export const toMajor = (cents: number, currency: string): string => String(cents / 10 ** minorUnitDigits(currency));

function rewardForm(r: Reward | undefined): RewardForm {
  if (!r) return emptyReward();
  if (r.type === 'percent') return { kind: 'percent', percent: String(r.bps / 100), amounts: noAmounts() };
  return { kind: 'flat', percent: '', amounts: amountFields(r.amounts, toMajor) };
}

/** The form showing a rules document (null: the program's rate alone). */
export function rulesToForm(rules: RewardRules | null): RulesForm {
  const flat = [rules?.sale, rules?.first_sale].find((r) => r?.type === 'flat');
  // The currency the program most likely sells in: its lead reward's, a flat reward's, else the first accepted.
  const unit =
    rules?.lead?.currency ??
    (flat?.type === 'flat' ? Object.keys(flat.amounts)[0] : undefined) ??
    acceptedCurrencies.value[0] ??
    'USD';
  return {
    firstSale: rewardForm(rules?.first_sale),
    sale: rewardForm(rules?.sale),
    products: Object.entries(rules?.products ?? {}).map(([id, r]) => ({ id, reward: rewardForm(r) })),
    tiers: {
      metric: rules?.tiers?.metric ?? 'sales',
      unit,
      period: rules?.tiers?.period ?? 'calendar_month',
      steps: (rules?.tiers?.steps ?? []).map((s) => ({
        from: rules?.tiers?.metric === 'revenue' ? toMajor(s.from, unit) : String(s.from),
        reward: rewardForm(s.reward),
      })),
    },
    lead: {
      currency: rules?.lead?.currency ?? 'USD',
      amount: rules?.lead ? toMajor(rules.lead.cents, rules.lead.currency) : '',
    },
    recurring: {
      policy: rules?.recurring?.policy ?? 'program',
      months: rules?.recurring?.months == null ? '' : String(rules.recurring.months),
    },
  };
}

/** The result of reading the form: the document (when valid) and the sentences by field. */
export type FormResult = { rules: RewardRules | null; errors: Record<string, string> };

/** Reads the form: the rules document it stands for, or sentences next to the fields that stop it. */
export function formToRules(form: RulesForm): FormResult {
  const errors: Record<string, string> = {};
  const number = (text: string, key: string, what: string): number => {
    const n = Number(text.trim().replace(/,/g, ''));
    if (text.trim() === '' || !Number.isFinite(n)) errors[key] ??= `Enter ${what} as a number.`;
    return n;
  };
  const money = (text: string, currency: Currency, key: string, what: string): number =>
    Math.round(number(text, key, what) * 10 ** minorUnitDigits(currency));
  const reward = (f: RewardForm, key: string): Reward | undefined => {
    if (f.kind === 'percent') {
      const p = number(f.percent, `${key}.bps`, 'the percentage');
      if (p < 0 || p > 100) errors[`${key}.bps`] ??= 'Enter a percentage between 0 and 100.';
      return { type: 'percent', bps: Math.round(p * 100) };
    }
    if (f.kind === 'flat') {
      const amounts: Partial<Record<Currency, number>> = {};
      for (const [c, text] of Object.entries(f.amounts)) {
        if (text.trim()) amounts[c] = money(text, c, `${key}.amounts.${c}`, `the amount in ${c}`);
      }
      return { type: 'flat', amounts };
    }
    return undefined;
  };
  const doc: RewardRules = {};
  const firstSale = reward(form.firstSale, 'first_sale');
  if (firstSale) doc.first_sale = firstSale;
  const sale = reward(form.sale, 'sale');
  if (sale) doc.sale = sale;
  const products: NonNullable<RewardRules['products']> = {};
  form.products.forEach((p, i) => {
    const r = reward(p.reward, `products.${p.id || i}`);
    if (!p.id.trim()) errors[`products.${i}`] ??= 'Name the product (its product_id).';
    else if (r) products[p.id.trim()] = r;
  });
  if (form.products.length) doc.products = products;
  const steps = form.tiers.steps.map((s, i) => ({
    from:
      form.tiers.metric === 'revenue'
        ? money(s.from, form.tiers.unit, `tiers.steps.${i}.from`, 'where the step starts')
        : number(s.from, `tiers.steps.${i}.from`, 'where the step starts'),
    reward:
      reward(s.reward, `tiers.steps.${i}.reward`) ??
      ((errors[`tiers.steps.${i}.reward`] ??= 'Choose the reward from this step.'),
      { type: 'percent' as const, bps: 0 }),
  }));
  if (steps.length) doc.tiers = { metric: form.tiers.metric, period: form.tiers.period, steps };
  if (form.lead.amount.trim())
    doc.lead = {
      currency: form.lead.currency,
      cents: money(form.lead.amount, form.lead.currency, 'lead.cents', 'the amount'),
    };
  if (form.recurring.policy !== 'program')
    doc.recurring = {
      policy: form.recurring.policy,
      months:
        form.recurring.policy === 'months' ? number(form.recurring.months, 'recurring.months', 'the months') : null,
    };
  if (Object.keys(errors).length) return { rules: null, errors };
  return checkRules(Object.keys(doc).length ? doc : null);
}

/** A rules document (the form's or the JSON view's) checked by the server's schema. */
export function checkRules(doc: unknown): FormResult {
  if (doc === null) return { rules: null, errors: {} };
  const parsed = rewardRulesSchema.safeParse(doc);
  return parsed.success ? { rules: parsed.data, errors: {} } : { rules: null, errors: plainIssues(parsed.error) };
}
