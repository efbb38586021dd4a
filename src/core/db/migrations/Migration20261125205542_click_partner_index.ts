import { Migration } from '@mikro-orm/migrations';

/**
 * A partner's clicks of a period, for the click-rate fraud rule. On a large live `click` table,
 * create this index beforehand with `create index concurrently` (same name): this statement then
 * skips it.
 */
export class Migration20261125205542_click_partner_index extends Migration {
  override name = 'Migration20261125205542_click_partner_index';

  override up(): void | Promise<void> {
    this.addSql(
      `create index if not exists "click_partner_id_clicked_at_index" on "click" ("partner_id", "clicked_at");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "click_partner_id_clicked_at_index";`);
  }
}
