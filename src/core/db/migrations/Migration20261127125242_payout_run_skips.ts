import { Migration } from '@mikro-orm/migrations';

/** The partners a payout run passed by, and why (payout_run_skip). A new table only. */
export class Migration20261127125242_payout_run_skips extends Migration {
  override name = 'Migration20261127125242_payout_run_skips';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "payout_run_skip" ("id" serial primary key, "run_id" int not null, "partner_id" int not null, "code" varchar(255) not null, "reason" varchar(255) not null, "balance_cents" bigint not null);`,
    );
    this.addSql(`create index "payout_run_skip_run_id_index" on "payout_run_skip" ("run_id");`);
    this.addSql(
      `alter table "payout_run_skip" add constraint "payout_run_skip_run_id_foreign" foreign key ("run_id") references "payout_run" ("id");`,
    );
    this.addSql(
      `alter table "payout_run_skip" add constraint "payout_run_skip_partner_id_foreign" foreign key ("partner_id") references "partner" ("id");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "payout_run_skip" cascade;`);
  }
}
