import { Migration } from '@mikro-orm/migrations';

/** Orders registered before a bank-transfer QR is shown (`POST /api/v1/track/checkout`): PayOS and SePay sales find their customer here. */
export class Migration20261126032534_order_registrations extends Migration {
  override name = 'Migration20261126032534_order_registrations';

  override up(): void | Promise<void> {
    this.addSql(
      `create table if not exists "order_registration" ("id" serial primary key, "program_id" int not null, "order_code" varchar(255) not null, "customer_key" varchar(255) null, "click_id" varchar(255) null, "provider" varchar(255) null, "amount_cents" bigint null, "currency" varchar(255) null, "created_at" timestamptz not null);`,
    );
    this.addSql(
      `alter table "order_registration" add constraint "order_registration_program_id_order_code_unique" unique ("program_id", "order_code");`,
    );
    this.addSql(
      `alter table "order_registration" add constraint "order_registration_program_id_foreign" foreign key ("program_id") references "program" ("id") not valid;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "order_registration" cascade;`);
  }
}
