import { Migration } from '@mikro-orm/migrations';

/**
 * Rewards per lead: a commission names its sale or, for a lead reward, its customer (at most one
 * per customer). Dropping `not null` only changes the catalogue; the new column is nullable without
 * a default (no rewrite); its foreign key and the one-of check are `not valid` (no scan of existing
 * rows, which all have a sale); the unique index is built over a column that is null everywhere.
 */
export class Migration20261125202756_lead_rewards extends Migration {
  override name = 'Migration20261125202756_lead_rewards';

  override up(): void | Promise<void> {
    this.addSql(`alter table "commission" alter column "sale_id" drop not null;`);
    this.addSql(`alter table "commission" add "lead_customer_id" int null;`);
    this.addSql(
      `alter table "commission" add constraint "commission_lead_customer_id_foreign" foreign key ("lead_customer_id") references "customer" ("id") not valid;`,
    );
    this.addSql(
      `alter table "commission" add constraint "commission_lead_customer_id_unique" unique ("lead_customer_id");`,
    );
    this.addSql(
      `alter table "commission" add constraint "commission_sale_or_lead" check (("sale_id" is null) <> ("lead_customer_id" is null)) not valid;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`delete from "commission" where "sale_id" is null;`);
    this.addSql(`alter table "commission" drop constraint "commission_sale_or_lead";`);
    this.addSql(`alter table "commission" drop constraint "commission_lead_customer_id_unique";`);
    this.addSql(`alter table "commission" drop constraint "commission_lead_customer_id_foreign";`);
    this.addSql(`alter table "commission" drop column "lead_customer_id";`);
    this.addSql(`alter table "commission" alter column "sale_id" set not null;`);
  }
}
