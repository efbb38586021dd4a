import { Migration } from '@mikro-orm/migrations';

/**
 * Outbound events: the merchant's endpoints per program and the outbox of deliveries to them
 * (README "Outbound events"). Two new tables; nothing existing changes.
 */
export class Migration20261125211006_outbound_events extends Migration {
  override name = 'Migration20261125211006_outbound_events';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "event_endpoint" ("id" serial primary key, "program_id" int not null, "url" text not null, "event_types" jsonb null, "enabled" boolean not null default true, "secret" text not null, "previous_secret" text null, "consecutive_failures" int not null default 0, "disabled_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(`create index "event_endpoint_program_id_index" on "event_endpoint" ("program_id");`);
    this.addSql(
      `create table "event_delivery" ("id" serial primary key, "program_id" int not null, "endpoint_id" int not null, "event_id" varchar(40) not null, "type" varchar(255) not null, "payload" text not null, "status" varchar(255) not null default 'pending', "attempts" int not null default 0, "last_status_code" int null, "last_response" text null, "last_attempt_at" timestamptz null, "delivered_at" timestamptz null, "created_at" timestamptz not null, "sweeps" int not null default 0, "swept_at" timestamptz null);`,
    );
    this.addSql(`create index "event_delivery_program_id_index" on "event_delivery" ("program_id");`);
    this.addSql(`create index "event_delivery_status_created_at_index" on "event_delivery" ("status", "created_at");`);
    this.addSql(`create index "event_delivery_endpoint_id_id_index" on "event_delivery" ("endpoint_id", "id");`);
    this.addSql(
      `alter table "event_endpoint" add constraint "event_endpoint_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );
    this.addSql(
      `alter table "event_delivery" add constraint "event_delivery_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );
    this.addSql(
      `alter table "event_delivery" add constraint "event_delivery_endpoint_id_foreign" foreign key ("endpoint_id") references "event_endpoint" ("id");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "event_delivery" cascade;`);
    this.addSql(`drop table if exists "event_endpoint" cascade;`);
  }
}
