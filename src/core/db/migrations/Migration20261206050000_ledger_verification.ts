import { Migration } from '@mikro-orm/migrations';

/** A program's last ledger verification (ledger_verification). A new table only. */
export class Migration20261206050000_ledger_verification extends Migration {
  override name = 'Migration20261206050000_ledger_verification';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "ledger_verification" ("program_id" int not null, "verified_at" timestamptz not null, "differences" int not null, "first_difference" text null, "rows" int not null, "elapsed_ms" int not null, constraint "ledger_verification_pkey" primary key ("program_id"));`,
    );
    this.addSql(
      `alter table "ledger_verification" add constraint "ledger_verification_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "ledger_verification" cascade;`);
  }
}
