import { Migration } from '@mikro-orm/migrations';

/** `parked_refund`: provider refunds and disputes that arrived before their sale (entities/parked-refund.ts). */
export class Migration20261125160000_parked_refunds extends Migration {
  override name = 'Migration20261125160000_parked_refunds';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "parked_refund" ("id" serial primary key, "program_id" int not null, "provider" varchar(255) null, "transaction_id" varchar(255) not null, "sale_alias" varchar(255) null, "dedupe_key" text not null, "job" jsonb not null, "webhook_event_id" int null, "status" varchar(255) not null default 'parked', "parked_at" timestamptz not null, "resolved_at" timestamptz null, "outcome" jsonb null);`,
    );
    this.addSql(`create index "parked_refund_status_parked_at_index" on "parked_refund" ("status", "parked_at");`);
    this.addSql(
      `create index "parked_refund_program_id_transaction_id_index" on "parked_refund" ("program_id", "transaction_id");`,
    );
    this.addSql(
      `create index "parked_refund_program_id_sale_alias_index" on "parked_refund" ("program_id", "sale_alias");`,
    );
    this.addSql(
      `alter table "parked_refund" add constraint "parked_refund_program_id_dedupe_key_unique" unique ("program_id", "dedupe_key");`,
    );
    this.addSql(
      `alter table "parked_refund" add constraint "parked_refund_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "parked_refund" cascade;`);
  }
}
