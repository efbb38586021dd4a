import { Migration } from '@mikro-orm/migrations';

/**
 * One payout model: withdrawals become payouts that pay whole credited commissions (each carries
 * its payout id); the ledger's `withdrawal_paid` entries become `payout`. The notification outbox
 * counts sweeper re-enqueues; `service_instance` holds the per-database job-id nonce.
 */
export class Migration20261123104500_payouts extends Migration {
  override name = 'Migration20261123104500_payouts';

  override up(): void | Promise<void> {
    this.addSql(`alter table "withdrawal" rename to "payout";`);
    this.addSql(`alter table "payout" rename constraint "withdrawal_pkey" to "payout_pkey";`);
    this.addSql(
      `alter table "payout" rename constraint "withdrawal_partner_id_foreign" to "payout_partner_id_foreign";`,
    );
    this.addSql(`alter sequence "withdrawal_id_seq" rename to "payout_id_seq";`);
    this.addSql(`drop index "withdrawal_partner_id_index";`);
    this.addSql(
      `alter table "payout" add column "program_id" int null, add column "commissions_cents" bigint not null default '0', add column "netted_cents" bigint not null default '0';`,
    );
    this.addSql(
      `update "payout" set "program_id" = "partner"."program_id" from "partner" where "partner"."id" = "payout"."partner_id";`,
    );
    this.addSql(`update "payout" set "commissions_cents" = "amount_cents" where "status" = 'paid';`);
    this.addSql(
      `alter table "payout" alter column "program_id" set not null, alter column "requested_cents" drop not null;`,
    );
    this.addSql(
      `alter table "payout" add constraint "payout_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );
    this.addSql(`create index "payout_program_id_index" on "payout" ("program_id");`);
    this.addSql(
      `create index "payout_partner_id_currency_status_index" on "payout" ("partner_id", "currency", "status");`,
    );

    this.addSql(`alter table "balance_entry" rename column "withdrawal_id" to "payout_id";`);
    this.addSql(`update "balance_entry" set "kind" = 'payout' where "kind" = 'withdrawal_paid';`);

    this.addSql(`alter table "commission" add column "payout_id" int null;`);
    this.addSql(
      `alter table "commission" add constraint "commission_payout_id_foreign" foreign key ("payout_id") references "payout" ("id") on delete set null;`,
    );
    this.addSql(`create index "commission_payout_id_index" on "commission" ("payout_id");`);

    this.addSql(
      `alter table "notification" add column "sweeps" int not null default 0, add column "swept_at" timestamptz null;`,
    );

    this.addSql(
      `create table "service_instance" ("id" int not null, "nonce" varchar(16) not null, primary key ("id"));`,
    );
    this.addSql(
      `insert into "service_instance" ("id", "nonce") values (1, substr(md5(random()::text || clock_timestamp()::text), 1, 16));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "service_instance";`);
    this.addSql(`alter table "notification" drop column "sweeps", drop column "swept_at";`);
    this.addSql(`alter table "commission" drop constraint "commission_payout_id_foreign";`);
    this.addSql(`alter table "commission" drop column "payout_id";`);
    this.addSql(`update "balance_entry" set "kind" = 'withdrawal_paid' where "kind" = 'payout';`);
    this.addSql(`alter table "balance_entry" rename column "payout_id" to "withdrawal_id";`);
    this.addSql(`drop index "payout_partner_id_currency_status_index";`);
    this.addSql(`drop index "payout_program_id_index";`);
    this.addSql(`alter table "payout" drop constraint "payout_program_id_foreign";`);
    this.addSql(`update "payout" set "requested_cents" = "amount_cents" where "requested_cents" is null;`);
    this.addSql(
      `alter table "payout" drop column "program_id", drop column "commissions_cents", drop column "netted_cents", alter column "requested_cents" set not null;`,
    );
    this.addSql(`create index "withdrawal_partner_id_index" on "payout" ("partner_id");`);
    this.addSql(`alter sequence "payout_id_seq" rename to "withdrawal_id_seq";`);
    this.addSql(
      `alter table "payout" rename constraint "payout_partner_id_foreign" to "withdrawal_partner_id_foreign";`,
    );
    this.addSql(`alter table "payout" rename constraint "payout_pkey" to "withdrawal_pkey";`);
    this.addSql(`alter table "payout" rename to "withdrawal";`);
  }
}
