import { Migration } from '@mikro-orm/migrations';

/**
 * A customer's sales, for the first-sale reward (whether a sale is its customer's first payment)
 * and for the customer's deletion (its sales' `customer_id` set to null). On a large live table,
 * create it first with `create index concurrently` under the same name: this statement then skips it.
 */
export class Migration20261127124659_sale_customer_index extends Migration {
  override name = 'Migration20261127124659_sale_customer_index';

  override up(): void | Promise<void> {
    this.addSql(
      `create index if not exists "sale_customer_id_index" on "sale" ("customer_id") where customer_id is not null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "sale_customer_id_index";`);
  }
}
