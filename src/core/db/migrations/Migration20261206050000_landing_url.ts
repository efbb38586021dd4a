import { Migration } from '@mikro-orm/migrations';

/** The program's `landing_url`: where partners' links land by default (null: the domain's home page). */
export class Migration20261206050000_landing_url extends Migration {
  override name = 'Migration20261206050000_landing_url';

  override up(): void | Promise<void> {
    this.addSql(`alter table "program" add "landing_url" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "program" drop column "landing_url";`);
  }
}
