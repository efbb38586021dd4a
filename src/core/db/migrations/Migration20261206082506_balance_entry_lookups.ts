import { Migration } from '@mikro-orm/migrations';

/**
 * A commission's and a payout's ledger postings, as `ledger:verify` reads them (`postingsOf`, by
 * commission id and by payout id). Partial: a credit or a refund deduction has no payout id and a
 * payout row no commission id, so each index holds only the rows that have its column. On a
 * large live table, create them first with `create index concurrently` under the same names:
 * these statements then skip them.
 */
export class Migration20261206082506_balance_entry_lookups extends Migration {
  override name = 'Migration20261206082506_balance_entry_lookups';

  override up(): void | Promise<void> {
    this.addSql(
      `create index if not exists "balance_entry_commission_id_index" on "balance_entry" ("commission_id") where commission_id is not null;`,
    );
    this.addSql(
      `create index if not exists "balance_entry_payout_id_index" on "balance_entry" ("payout_id") where payout_id is not null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "balance_entry_commission_id_index";`);
    this.addSql(`drop index "balance_entry_payout_id_index";`);
  }
}
