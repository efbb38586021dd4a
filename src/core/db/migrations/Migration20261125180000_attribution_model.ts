import { Migration } from '@mikro-orm/migrations';

/** The program's `attribution_model` (`last_click`, the contract's, or `first_click`). */
export class Migration20261125180000_attribution_model extends Migration {
  override name = 'Migration20261125180000_attribution_model';

  override up(): void | Promise<void> {
    this.addSql(`alter table "program" add "attribution_model" varchar(255) not null default 'last_click';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "program" drop column "attribution_model";`);
  }
}
