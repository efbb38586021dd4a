import { Migration } from '@mikro-orm/migrations';

/**
 * Payout rails: partners' sealed payout details, payout runs, a program's payout settings, and on
 * payouts their run, rail, the rail's id of the payment and a failure. New tables and nullable
 * columns only; the payout table's new unique constraint builds an index over a small table.
 */
export class Migration20261126000102_payout_rails extends Migration {
  override name = 'Migration20261126000102_payout_rails';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "payout_run" ("id" serial primary key, "program_id" int not null, "rail" varchar(255) not null, "currency" varchar(3) not null, "credited_before" timestamptz not null, "scheduled_for" varchar(10) null, "payout_count" int not null default 0, "total_cents" bigint not null default '0', "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "payout_run_program_id_index" on "payout_run" ("program_id");`);
    this.addSql(
      `alter table "payout_run" add constraint "payout_run_program_id_currency_scheduled_for_unique" unique ("program_id", "currency", "scheduled_for");`,
    );

    this.addSql(
      `create table "payout_method" ("id" serial primary key, "program_id" int not null, "partner_id" int not null, "kind" varchar(255) not null, "details_sealed" text not null, "hint" varchar(255) not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(`create index "payout_method_program_id_index" on "payout_method" ("program_id");`);
    this.addSql(`alter table "payout_method" add constraint "payout_method_partner_id_unique" unique ("partner_id");`);

    this.addSql(`alter table "program" add "payout_settings" jsonb null;`);

    this.addSql(
      `alter table "payout" add "run_id" int null, add "rail" varchar(255) null, add "external_id" varchar(255) null, add "failed_at" timestamptz null, add "failure_reason" varchar(255) null;`,
    );
    this.addSql(
      `alter table "payout" add constraint "payout_run_id_foreign" foreign key ("run_id") references "payout_run" ("id") on delete set null not valid;`,
    );
    this.addSql(`create index "payout_run_id_index" on "payout" ("run_id");`);
    this.addSql(
      `alter table "payout" add constraint "payout_program_id_external_id_unique" unique ("program_id", "external_id");`,
    );

    this.addSql(
      `alter table "payout_run" add constraint "payout_run_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );

    this.addSql(
      `alter table "payout_method" add constraint "payout_method_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );
    this.addSql(
      `alter table "payout_method" add constraint "payout_method_partner_id_foreign" foreign key ("partner_id") references "partner" ("id");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "payout" drop constraint "payout_run_id_foreign";`);

    this.addSql(`drop table if exists "payout_run" cascade;`);
    this.addSql(`drop table if exists "payout_method" cascade;`);

    this.addSql(`drop index "payout_run_id_index";`);
    this.addSql(`alter table "payout" drop constraint "payout_program_id_external_id_unique";`);
    this.addSql(
      `alter table "payout" drop column "run_id", drop column "rail", drop column "external_id", drop column "failed_at", drop column "failure_reason";`,
    );

    this.addSql(`alter table "program" drop column "payout_settings";`);
  }
}
