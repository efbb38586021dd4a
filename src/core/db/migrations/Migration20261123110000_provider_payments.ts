import { Migration } from '@mikro-orm/migrations';

export class Migration20261123110000_provider_payments extends Migration {
  override name = 'Migration20261123110000_provider_payments';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "payment_link" ("id" serial primary key, "program_id" int not null, "alias" varchar(255) not null, "transaction_id" varchar(255) not null, "provider" varchar(255) not null, "created_at" timestamptz not null);`,
    );
    this.addSql(
      `alter table "payment_link" add constraint "payment_link_program_id_alias_unique" unique ("program_id", "alias");`,
    );

    this.addSql(`alter table "program" add "provider_amount_includes_tax" boolean not null default false;`);

    this.addSql(`alter table "sale" add "paid_cents" bigint null;`);

    this.addSql(`alter table "webhook_event" add "payload_redacted_at" timestamptz null;`);
    this.addSql(
      `create index "webhook_event_payload_redacted_at_received_at_index" on "webhook_event" ("payload_redacted_at", "received_at");`,
    );

    this.addSql(
      `alter table "payment_link" add constraint "payment_link_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "payment_link" cascade;`);

    this.addSql(`alter table "program" drop column "provider_amount_includes_tax";`);

    this.addSql(`alter table "sale" drop column "paid_cents";`);

    this.addSql(`drop index "webhook_event_payload_redacted_at_received_at_index";`);
    this.addSql(`alter table "webhook_event" drop column "payload_redacted_at";`);
  }
}
