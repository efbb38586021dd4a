import { Migration } from '@mikro-orm/migrations';

/**
 * Reward rules (`program.reward_rules`, `partner_group`, `partner.group_id`) and the rule stored
 * with each commission (`commission.reward`). Nullable columns without defaults: no table rewrite;
 * the partner's foreign key is added `not valid` (existing rows are all null), so no large table
 * is scanned under the migration's lock.
 */
export class Migration20261125181707_reward_rules extends Migration {
  override name = 'Migration20261125181707_reward_rules';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "partner_group" ("id" serial primary key, "program_id" int not null, "name" varchar(255) not null, "reward_rules" jsonb null, "created_at" timestamptz not null);`,
    );
    this.addSql(
      `alter table "partner_group" add constraint "partner_group_program_id_name_unique" unique ("program_id", "name");`,
    );

    this.addSql(`alter table "program" add "reward_rules" jsonb null;`);

    this.addSql(`alter table "partner" add "group_id" int null;`);
    this.addSql(
      `alter table "partner" add constraint "partner_group_id_foreign" foreign key ("group_id") references "partner_group" ("id") on delete set null not valid;`,
    );

    this.addSql(`alter table "commission" add "reward" jsonb null;`);
    // Tier results read a partner's sales of a period. On a large live `sale` table, create this
    // index beforehand with `create index concurrently` (same name): this statement then skips it.
    this.addSql(
      `create index if not exists "sale_partner_id_received_at_index" on "sale" ("partner_id", "received_at");`,
    );

    this.addSql(
      `alter table "partner_group" add constraint "partner_group_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "partner" drop constraint "partner_group_id_foreign";`);

    this.addSql(`drop table if exists "partner_group" cascade;`);

    this.addSql(`drop index if exists "sale_partner_id_received_at_index";`);
    this.addSql(`alter table "commission" drop column "reward";`);

    this.addSql(`alter table "partner" drop column "group_id";`);

    this.addSql(`alter table "program" drop column "reward_rules";`);
  }
}
