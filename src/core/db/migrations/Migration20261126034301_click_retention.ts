import { Migration } from '@mikro-orm/migrations';

/** Click retention (click-retention.ts): the counts of deleted clicks, and the per-program opt-out. */
export class Migration20261126034301_click_retention extends Migration {
  override name = 'Migration20261126034301_click_retention';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "click_pruned" ("program_id" int not null, "day" date not null, "partner_id" int not null, "clicks" bigint not null default '0', primary key ("program_id", "day", "partner_id"));`,
    );
    this.addSql(`alter table "program" add "keep_raw_clicks" boolean not null default false;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "click_pruned" cascade;`);
    this.addSql(`alter table "program" drop column "keep_raw_clicks";`);
  }
}
