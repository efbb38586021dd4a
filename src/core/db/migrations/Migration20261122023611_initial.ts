import { Migration } from '@mikro-orm/migrations';

export class Migration20261122023611_initial extends Migration {
  override name = 'Migration20261122023611_initial';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "program" ("id" serial primary key, "name" varchar(255) not null, "domain" varchar(255) null, "commission_rate_bps" int not null default 1000, "product_rates_bps" jsonb null, "cookie_duration_days" int not null default 60, "attribution_window_days" int not null default 60, "hold_period_days" int not null default 30, "recurring_policy" varchar(255) not null default 'lifetime', "recurring_months" int null, "rate_limit_per_minute" int not null default 600, "platform_fee_bps" int not null default 0, "created_at" timestamptz not null);`,
    );

    this.addSql(
      `create table "partner" ("id" serial primary key, "program_id" int not null, "code" varchar(255) not null, "name" varchar(255) not null, "email" varchar(255) null, "created_at" timestamptz not null);`,
    );
    this.addSql(`alter table "partner" add constraint "partner_code_unique" unique ("code");`);

    this.addSql(
      `create table "partner_balance" ("id" serial primary key, "partner_id" int not null, "currency" varchar(3) not null, "balance_cents" bigint not null default '0');`,
    );
    this.addSql(
      `alter table "partner_balance" add constraint "partner_balance_partner_id_currency_unique" unique ("partner_id", "currency");`,
    );

    this.addSql(
      `create table "balance_entry" ("id" serial primary key, "partner_id" int not null, "currency" varchar(3) not null, "delta_cents" bigint not null, "kind" varchar(255) not null, "commission_id" int null, "refund_id" int null, "withdrawal_id" int null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "balance_entry_partner_id_index" on "balance_entry" ("partner_id");`);

    this.addSql(
      `create table "notification" ("id" serial primary key, "program_id" int not null, "kind" varchar(255) not null, "partner_id" int null, "commission_id" int null, "payload" jsonb not null, "created_at" timestamptz not null, "delivered_at" timestamptz null);`,
    );
    this.addSql(`create index "notification_program_id_index" on "notification" ("program_id");`);
    this.addSql(`create index "notification_delivered_at_index" on "notification" ("delivered_at");`);

    this.addSql(
      `create table "click" ("id" varchar(255) not null, "program_id" int not null, "partner_id" int not null, "affiliate_url" text not null, "page_url" text null, "referrer_url" text null, "visitor_id" varchar(255) null, "clicked_at" timestamptz not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "click_program_id_index" on "click" ("program_id");`);

    this.addSql(
      `create table "customer" ("id" serial primary key, "program_id" int not null, "customer_key" varchar(255) null, "click_id" varchar(255) null, "partner_id" int null, "email_hash" varchar(255) null, "event_name" varchar(255) null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "customer_click_id_index" on "customer" ("click_id");`);
    this.addSql(
      `alter table "customer" add constraint "customer_program_id_customer_key_unique" unique ("program_id", "customer_key");`,
    );

    this.addSql(
      `create table "api_key" ("id" serial primary key, "program_id" int not null, "mode" varchar(255) not null, "key_hash" varchar(255) not null, "prefix" varchar(255) not null, "status" varchar(255) not null default 'active', "rotate_by" timestamptz null, "created_at" timestamptz not null, "retired_at" timestamptz null);`,
    );
    this.addSql(`alter table "api_key" add constraint "api_key_key_hash_unique" unique ("key_hash");`);

    this.addSql(
      `create table "provider_connection" ("id" serial primary key, "program_id" int not null, "provider" varchar(255) not null, "signing_secret" varchar(255) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(
      `alter table "provider_connection" add constraint "provider_connection_program_id_provider_unique" unique ("program_id", "provider");`,
    );

    this.addSql(
      `create table "sale" ("id" serial primary key, "program_id" int not null, "transaction_id" varchar(255) not null, "amount_cents" bigint not null, "tax_cents" bigint null, "currency" varchar(3) not null, "sale_type" varchar(255) not null, "line_items" jsonb null, "is_recurring" boolean not null default false, "subscription_id" varchar(255) null, "subscription_interval" varchar(255) null, "product_id" varchar(255) null, "occurred_at" timestamptz null, "provider" varchar(255) null, "provider_payment_id" varchar(255) null, "customer_id" int null, "partner_id" int null, "click_id" varchar(255) null, "visitor_id" varchar(255) null, "refunded_cents" bigint not null default '0', "received_at" timestamptz not null);`,
    );
    this.addSql(`create index "sale_program_id_subscription_id_index" on "sale" ("program_id", "subscription_id");`);
    this.addSql(
      `alter table "sale" add constraint "sale_program_id_transaction_id_unique" unique ("program_id", "transaction_id");`,
    );

    this.addSql(
      `create table "platform_fee" ("id" serial primary key, "program_id" int not null, "sale_id" int not null, "amount_cents" bigint not null, "currency" varchar(3) not null, "rate_bps" int not null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "platform_fee_program_id_index" on "platform_fee" ("program_id");`);
    this.addSql(`alter table "platform_fee" add constraint "platform_fee_sale_id_unique" unique ("sale_id");`);

    this.addSql(
      `create table "commission" ("id" serial primary key, "program_id" int not null, "sale_id" int not null, "partner_id" int not null, "amount_cents" bigint not null, "reversed_cents" bigint not null default '0', "currency" varchar(3) not null, "rate_bps" int not null, "status" varchar(255) not null default 'pending', "reason" text null, "credited_at" timestamptz null, "paid_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(`create index "commission_program_id_index" on "commission" ("program_id");`);
    this.addSql(`alter table "commission" add constraint "commission_sale_id_unique" unique ("sale_id");`);
    this.addSql(`create index "commission_partner_id_index" on "commission" ("partner_id");`);
    this.addSql(`create index "commission_status_created_at_index" on "commission" ("status", "created_at");`);

    this.addSql(
      `create table "refund" ("id" serial primary key, "program_id" int not null, "sale_id" int not null, "commission_id" int null, "refund_id" varchar(255) null, "requested_cents" bigint null, "applied_cents" bigint not null, "deduction_cents" bigint not null, "balance_deduction_cents" bigint not null default '0', "reason" text null, "source" varchar(255) not null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "refund_sale_id_index" on "refund" ("sale_id");`);
    this.addSql(
      `alter table "refund" add constraint "refund_sale_id_refund_id_unique" unique ("sale_id", "refund_id");`,
    );

    this.addSql(
      `create table "test_event" ("id" serial primary key, "program_id" int not null, "kind" varchar(255) not null, "transaction_id" varchar(255) null, "amount_cents" bigint null, "currency" varchar(255) null, "payload" jsonb not null, "created_at" timestamptz not null);`,
    );
    this.addSql(
      `alter table "test_event" add constraint "test_event_program_id_transaction_id_unique" unique ("program_id", "transaction_id");`,
    );

    this.addSql(
      `create table "webhook_event" ("id" serial primary key, "provider" varchar(255) not null, "program_id" int not null, "dedupe_key" varchar(255) not null, "event_type" varchar(255) not null, "payload" jsonb not null, "normalised" jsonb not null, "status" varchar(255) not null default 'pending', "outcome" jsonb null, "error" text null, "attempts" int not null default 0, "received_at" timestamptz not null, "processed_at" timestamptz null);`,
    );
    this.addSql(`create index "webhook_event_status_received_at_index" on "webhook_event" ("status", "received_at");`);
    this.addSql(
      `alter table "webhook_event" add constraint "webhook_event_provider_program_id_dedupe_key_unique" unique ("provider", "program_id", "dedupe_key");`,
    );

    this.addSql(
      `create table "withdrawal" ("id" serial primary key, "partner_id" int not null, "currency" varchar(3) not null, "amount_cents" bigint not null, "requested_cents" bigint not null, "status" varchar(255) not null default 'open', "created_at" timestamptz not null, "paid_at" timestamptz null);`,
    );
    this.addSql(`create index "withdrawal_partner_id_index" on "withdrawal" ("partner_id");`);

    this.addSql(
      `alter table "partner" add constraint "partner_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );

    this.addSql(
      `alter table "partner_balance" add constraint "partner_balance_partner_id_foreign" foreign key ("partner_id") references "partner" ("id");`,
    );

    this.addSql(
      `alter table "balance_entry" add constraint "balance_entry_partner_id_foreign" foreign key ("partner_id") references "partner" ("id");`,
    );

    this.addSql(
      `alter table "notification" add constraint "notification_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );

    this.addSql(
      `alter table "click" add constraint "click_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );
    this.addSql(
      `alter table "click" add constraint "click_partner_id_foreign" foreign key ("partner_id") references "partner" ("id");`,
    );

    this.addSql(
      `alter table "customer" add constraint "customer_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );
    this.addSql(
      `alter table "customer" add constraint "customer_click_id_foreign" foreign key ("click_id") references "click" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "customer" add constraint "customer_partner_id_foreign" foreign key ("partner_id") references "partner" ("id") on delete set null;`,
    );

    this.addSql(
      `alter table "api_key" add constraint "api_key_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );

    this.addSql(
      `alter table "provider_connection" add constraint "provider_connection_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );

    this.addSql(
      `alter table "sale" add constraint "sale_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );
    this.addSql(
      `alter table "sale" add constraint "sale_customer_id_foreign" foreign key ("customer_id") references "customer" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "sale" add constraint "sale_partner_id_foreign" foreign key ("partner_id") references "partner" ("id") on delete set null;`,
    );

    this.addSql(
      `alter table "platform_fee" add constraint "platform_fee_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );
    this.addSql(
      `alter table "platform_fee" add constraint "platform_fee_sale_id_foreign" foreign key ("sale_id") references "sale" ("id");`,
    );

    this.addSql(
      `alter table "commission" add constraint "commission_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );
    this.addSql(
      `alter table "commission" add constraint "commission_sale_id_foreign" foreign key ("sale_id") references "sale" ("id");`,
    );
    this.addSql(
      `alter table "commission" add constraint "commission_partner_id_foreign" foreign key ("partner_id") references "partner" ("id");`,
    );

    this.addSql(
      `alter table "refund" add constraint "refund_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );
    this.addSql(
      `alter table "refund" add constraint "refund_sale_id_foreign" foreign key ("sale_id") references "sale" ("id");`,
    );
    this.addSql(
      `alter table "refund" add constraint "refund_commission_id_foreign" foreign key ("commission_id") references "commission" ("id") on delete set null;`,
    );

    this.addSql(
      `alter table "test_event" add constraint "test_event_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );

    this.addSql(
      `alter table "webhook_event" add constraint "webhook_event_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );

    this.addSql(
      `alter table "withdrawal" add constraint "withdrawal_partner_id_foreign" foreign key ("partner_id") references "partner" ("id");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "partner" drop constraint "partner_program_id_foreign";`);
    this.addSql(`alter table "notification" drop constraint "notification_program_id_foreign";`);
    this.addSql(`alter table "click" drop constraint "click_program_id_foreign";`);
    this.addSql(`alter table "customer" drop constraint "customer_program_id_foreign";`);
    this.addSql(`alter table "api_key" drop constraint "api_key_program_id_foreign";`);
    this.addSql(`alter table "provider_connection" drop constraint "provider_connection_program_id_foreign";`);
    this.addSql(`alter table "sale" drop constraint "sale_program_id_foreign";`);
    this.addSql(`alter table "platform_fee" drop constraint "platform_fee_program_id_foreign";`);
    this.addSql(`alter table "commission" drop constraint "commission_program_id_foreign";`);
    this.addSql(`alter table "refund" drop constraint "refund_program_id_foreign";`);
    this.addSql(`alter table "test_event" drop constraint "test_event_program_id_foreign";`);
    this.addSql(`alter table "webhook_event" drop constraint "webhook_event_program_id_foreign";`);
    this.addSql(`alter table "partner_balance" drop constraint "partner_balance_partner_id_foreign";`);
    this.addSql(`alter table "balance_entry" drop constraint "balance_entry_partner_id_foreign";`);
    this.addSql(`alter table "click" drop constraint "click_partner_id_foreign";`);
    this.addSql(`alter table "customer" drop constraint "customer_partner_id_foreign";`);
    this.addSql(`alter table "sale" drop constraint "sale_partner_id_foreign";`);
    this.addSql(`alter table "commission" drop constraint "commission_partner_id_foreign";`);
    this.addSql(`alter table "withdrawal" drop constraint "withdrawal_partner_id_foreign";`);
    this.addSql(`alter table "customer" drop constraint "customer_click_id_foreign";`);
    this.addSql(`alter table "sale" drop constraint "sale_customer_id_foreign";`);
    this.addSql(`alter table "platform_fee" drop constraint "platform_fee_sale_id_foreign";`);
    this.addSql(`alter table "commission" drop constraint "commission_sale_id_foreign";`);
    this.addSql(`alter table "refund" drop constraint "refund_sale_id_foreign";`);
    this.addSql(`alter table "refund" drop constraint "refund_commission_id_foreign";`);

    this.addSql(`drop table if exists "program" cascade;`);
    this.addSql(`drop table if exists "partner" cascade;`);
    this.addSql(`drop table if exists "partner_balance" cascade;`);
    this.addSql(`drop table if exists "balance_entry" cascade;`);
    this.addSql(`drop table if exists "notification" cascade;`);
    this.addSql(`drop table if exists "click" cascade;`);
    this.addSql(`drop table if exists "customer" cascade;`);
    this.addSql(`drop table if exists "api_key" cascade;`);
    this.addSql(`drop table if exists "provider_connection" cascade;`);
    this.addSql(`drop table if exists "sale" cascade;`);
    this.addSql(`drop table if exists "platform_fee" cascade;`);
    this.addSql(`drop table if exists "commission" cascade;`);
    this.addSql(`drop table if exists "refund" cascade;`);
    this.addSql(`drop table if exists "test_event" cascade;`);
    this.addSql(`drop table if exists "webhook_event" cascade;`);
    this.addSql(`drop table if exists "withdrawal" cascade;`);
  }
}
