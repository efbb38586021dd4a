import { Migration } from '@mikro-orm/migrations';

/**
 * Indexes of the read paths a year of a large program made slow (docs/performance.md, A year of
 * data): a partner's commission count by status and their credited, unpaid commissions (portal list
 * total, statement), a partner's ledger sums per currency and kind (statement), a program's refunds
 * by time (status, export window) and its ignored inbox events per reason (status); each answers
 * from the index alone. On a large live table, create each first with `create index concurrently`
 * under the same name: these statements then skip it.
 */
export class Migration20261126062338_read_path_indexes extends Migration {
  override name = 'Migration20261126062338_read_path_indexes';

  override up(): void | Promise<void> {
    this.addSql(
      `create index if not exists "balance_entry_partner_id_currency_kind_index" on "balance_entry" ("partner_id", "currency", "kind") include ("delta_cents");`,
    );
    this.addSql(
      `create index if not exists "commission_partner_id_status_index" on "commission" ("partner_id", "status");`,
    );
    this.addSql(
      `create index if not exists "commission_unpaid_index" on "commission" ("partner_id", "currency") include ("amount_cents", "reversed_cents") where credited_at is not null and paid_at is null;`,
    );
    this.addSql(
      `create index if not exists "refund_program_id_created_at_index" on "refund" ("program_id", "created_at");`,
    );
    this.addSql(
      `create index if not exists "webhook_event_ignored_index" on "webhook_event" ("program_id", "error", "received_at") where status = 'ignored';`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "balance_entry_partner_id_currency_kind_index";`);
    this.addSql(`drop index "commission_partner_id_status_index";`);
    this.addSql(`drop index "commission_unpaid_index";`);
    this.addSql(`drop index "refund_program_id_created_at_index";`);
    this.addSql(`drop index "webhook_event_ignored_index";`);
  }
}
