// Every migration, in order. Listed explicitly (no folder globbing) so the same list runs from
// source on Node's type stripping, in tests and in production.
import { Migration20261122023611_initial } from './Migration20261122023611_initial.ts';
import { Migration20261123091142_portal } from './Migration20261123091142_portal.ts';
import { Migration20261123093000_provider_secrets } from './Migration20261123093000_provider_secrets.ts';
import { Migration20261123095000_browser_leads } from './Migration20261123095000_browser_leads.ts';
import { Migration20261123104500_payouts } from './Migration20261123104500_payouts.ts';
import { Migration20261123110000_provider_payments } from './Migration20261123110000_provider_payments.ts';
import { Migration20261123141500_email_hash } from './Migration20261123141500_email_hash.ts';
import { Migration20261124073000_webhook_requeued_at } from './Migration20261124073000_webhook_requeued_at.ts';
import { Migration20261125160000_parked_refunds } from './Migration20261125160000_parked_refunds.ts';
import { Migration20261125175836_partner_codes } from './Migration20261125175836_partner_codes.ts';
import { Migration20261125180000_attribution_model } from './Migration20261125180000_attribution_model.ts';
import { Migration20261125181707_reward_rules } from './Migration20261125181707_reward_rules.ts';
import { Migration20261125183807_fraud_holds } from './Migration20261125183807_fraud_holds.ts';
import { Migration20261125202756_lead_rewards } from './Migration20261125202756_lead_rewards.ts';
import { Migration20261125203057_provider_api_key } from './Migration20261125203057_provider_api_key.ts';
import { Migration20261125205542_click_partner_index } from './Migration20261125205542_click_partner_index.ts';
import { Migration20261125211006_outbound_events } from './Migration20261125211006_outbound_events.ts';
import { Migration20261127125031_staff_and_audit } from './Migration20261127125031_staff_and_audit.ts';
import { Migration20261126063500_static_rollup_triggers } from './Migration20261126063500_static_rollup_triggers.ts';
import { Migration20261127124659_sale_customer_index } from './Migration20261127124659_sale_customer_index.ts';
import { Migration20261127124830_mcp_tokens } from './Migration20261127124830_mcp_tokens.ts';
import { Migration20261127124759_statement_checkpoints } from './Migration20261127124759_statement_checkpoints.ts';
import { Migration20261127125242_payout_run_skips } from './Migration20261127125242_payout_run_skips.ts';
import { Migration20261206050000_ledger_verification } from './Migration20261206050000_ledger_verification.ts';
import { Migration20261126062338_read_path_indexes } from './Migration20261126062338_read_path_indexes.ts';
import { Migration20261126040154_partner_notification_index } from './Migration20261126040154_partner_notification_index.ts';
import { Migration20261126034301_click_retention } from './Migration20261126034301_click_retention.ts';
import { Migration20261126032532_daily_rollups } from './Migration20261126032532_daily_rollups.ts';
import { Migration20261126000102_payout_rails } from './Migration20261126000102_payout_rails.ts';
import { Migration20261126032534_order_registrations } from './Migration20261126032534_order_registrations.ts';
import { Migration20261206050814_import_runs } from './Migration20261206050814_import_runs.ts';
import { Migration20261127125109_applications_email } from './Migration20261127125109_applications_email.ts';
import { Migration20261206050000_landing_url } from './Migration20261206050000_landing_url.ts';
import { Migration20261206082506_balance_entry_lookups } from './Migration20261206082506_balance_entry_lookups.ts';

export const MIGRATIONS = [
  Migration20261122023611_initial,
  Migration20261123091142_portal,
  Migration20261123093000_provider_secrets,
  Migration20261123095000_browser_leads,
  Migration20261123104500_payouts,
  Migration20261123110000_provider_payments,
  Migration20261123141500_email_hash,
  Migration20261124073000_webhook_requeued_at,
  Migration20261125160000_parked_refunds,
  Migration20261125175836_partner_codes,
  Migration20261125180000_attribution_model,
  Migration20261125181707_reward_rules,
  Migration20261125183807_fraud_holds,
  Migration20261125202756_lead_rewards,
  Migration20261125203057_provider_api_key,
  Migration20261125205542_click_partner_index,
  Migration20261125211006_outbound_events,
  Migration20261126000102_payout_rails,
  Migration20261126032532_daily_rollups,
  Migration20261126032534_order_registrations,
  Migration20261126034301_click_retention,
  Migration20261126040154_partner_notification_index,
  Migration20261126062338_read_path_indexes,
  Migration20261126063500_static_rollup_triggers,
  Migration20261127124659_sale_customer_index,
  Migration20261127124830_mcp_tokens,
  Migration20261127124759_statement_checkpoints,
  Migration20261127125031_staff_and_audit,
  Migration20261127125109_applications_email,
  Migration20261127125242_payout_run_skips,
  Migration20261206050000_landing_url,
  Migration20261206050000_ledger_verification,
  Migration20261206050814_import_runs,
  Migration20261206082506_balance_entry_lookups,
];
