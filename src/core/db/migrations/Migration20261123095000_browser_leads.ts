import { Migration } from '@mikro-orm/migrations';

/**
 * Browser leads that cannot steal customers: provisional and disputed customers, commissions held
 * for review, a program switch for keyless leads, and the conflicts shown to the advertiser.
 * Existing customers stay non-provisional (they were bound under the old rules).
 */
export class Migration20261123095000_browser_leads extends Migration {
  override name = 'Migration20261123095000_browser_leads';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "customer" add column "provisional" boolean not null default false, add column "disputed_at" timestamptz null;`,
    );
    this.addSql(`alter table "commission" add column "held_for_review" boolean not null default false;`);
    this.addSql(`alter table "program" add column "browser_leads" boolean not null default true;`);
    this.addSql(
      `create table "attribution_conflict" ("id" serial primary key, "program_id" int not null, "kind" varchar(255) not null, "customer_id" int null, "customer_key" varchar(255) null, "bound_click_id" varchar(255) null, "other_click_id" varchar(255) null, "sale_id" int null, "created_at" timestamptz not null, "resolved_at" timestamptz null);`,
    );
    this.addSql(`create index "attribution_conflict_program_id_index" on "attribution_conflict" ("program_id");`);
    this.addSql(
      `alter table "attribution_conflict" add constraint "attribution_conflict_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table "attribution_conflict" cascade;`);
    this.addSql(`alter table "program" drop column "browser_leads";`);
    this.addSql(`alter table "commission" drop column "held_for_review";`);
    this.addSql(`alter table "customer" drop column "provisional", drop column "disputed_at";`);
  }
}
