// A zod issue as a sentence for a person, keyed by the field it is about (its path joined by
// dots), so an editor shows it next to that field instead of a schema path.
import type { z } from 'zod';

/** What each field is called on the forms; a path not listed uses its last readable part. */
const FIELD_NAMES: Record<string, string> = {
  first_sale: 'The first-sale reward',
  sale: 'The reward on each sale',
  products: 'The per-product rewards',
  tiers: 'The tiers',
  'tiers.steps': 'The tier steps',
  lead: 'The reward per signup',
  'lead.cents': 'The reward per signup',
  recurring: 'The renewals setting',
  'recurring.months': 'The number of months',
  fast_conversion_seconds: 'The fast-conversion time',
  'click_spike.factor': 'The click spike factor',
  'click_spike.window_hours': 'The click spike window',
  'click_spike.min_clicks': 'The minimum number of clicks',
  minimum_cents: 'The minimum payout',
  day_of_month: 'The day of the month',
  hold_days: 'The waiting time',
};

/** The path of an issue as the editors key their fields: `sale.amounts.USD`, `tiers.steps.1.from`. */
export const issueKey = (path: readonly PropertyKey[]): string => path.map(String).join('.');

function fieldName(key: string): string {
  if (FIELD_NAMES[key]) return FIELD_NAMES[key];
  const parts = key.split('.');
  for (let i = parts.length - 1; i > 0; i--) {
    const name = FIELD_NAMES[parts.slice(0, i).join('.')];
    if (name) return name;
  }
  return key
    ? `The ${parts
        .filter((p) => !/^\d+$/.test(p))
        .pop()
        ?.replaceAll('_', ' ')} setting`
    : 'The rules';
}

/** One issue in plain words. */
export function plainIssue(issue: z.core.$ZodIssue): string {
  const name = fieldName(issueKey(issue.path));
  switch (issue.code) {
    case 'too_small':
      return `${name} must be at least ${String(issue.minimum)}.`;
    case 'too_big':
      return `${name} must be at most ${String(issue.maximum)}.`;
    case 'invalid_type':
      // Zod leaves the input out of its issues; its message names what it received.
      return /received undefined/.test(issue.message) ? `${name} is missing.` : `${name} must be a ${issue.expected}.`;
    case 'invalid_value':
      return `${name} must be one of: ${issue.values.map(String).join(', ')}.`;
    case 'unrecognized_keys':
      return `This service does not know these settings in ${name.replace(/^The/, 'the')}: ${issue.keys.join(', ')}.`;
    case 'invalid_union':
      return `${name} must be a percentage or a fixed amount.`;
    default:
      // Refinements are written as sentences (entities/program-rules.ts).
      return `${name}: ${issue.message.replaceAll('`', '')}.`;
  }
}

/** Every issue of a failed parse, keyed by field (the first issue of a field wins). */
export function plainIssues(error: z.ZodError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of error.issues) out[issueKey(issue.path)] ??= plainIssue(issue);
  return out;
}
