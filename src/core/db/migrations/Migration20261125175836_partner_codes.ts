import { Migration } from '@mikro-orm/migrations';

/**
 * Partners' coupon codes (`partner_code`), the program's `coupon_precedence`, and how each sale was
 * attributed (`sale.attributed_via`, `sale.partner_code_id`). The sale columns are nullable without
 * a default (no table rewrite); the sale's foreign key is added `not valid`: it holds for every
 * row written from now on, and the existing rows (all null) are not scanned under the migration's
 * lock, so a large `sale` table is locked only for an instant.
 */
export class Migration20261125175836_partner_codes extends Migration {
  override name = 'Migration20261125175836_partner_codes';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "partner_code" ("id" serial primary key, "program_id" int not null, "partner_id" int not null, "code" varchar(255) not null, "code_key" varchar(255) not null, "provider_ids" text[] not null default '{}', "disabled_at" timestamptz null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "partner_code_partner_id_index" on "partner_code" ("partner_id");`);
    this.addSql(
      `alter table "partner_code" add constraint "partner_code_program_id_code_key_unique" unique ("program_id", "code_key");`,
    );
    this.addSql(
      `alter table "partner_code" add constraint "partner_code_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );
    this.addSql(
      `alter table "partner_code" add constraint "partner_code_partner_id_foreign" foreign key ("partner_id") references "partner" ("id");`,
    );
    this.addSql(`alter table "program" add "coupon_precedence" varchar(255) not null default 'click';`);
    this.addSql(`alter table "sale" add "attributed_via" varchar(255) null, add "partner_code_id" int null;`);
    this.addSql(
      `alter table "sale" add constraint "sale_partner_code_id_foreign" foreign key ("partner_code_id") references "partner_code" ("id") on delete set null not valid;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "sale" drop constraint "sale_partner_code_id_foreign";`);
    this.addSql(`alter table "sale" drop column "attributed_via", drop column "partner_code_id";`);
    this.addSql(`alter table "program" drop column "coupon_precedence";`);
    this.addSql(`drop table if exists "partner_code" cascade;`);
  }
}
