import { Migration } from '@mikro-orm/migrations';

/**
 * A partner's notifications, newest first (the portal's list and unread count): before, each call
 * read every notification of the program. On a large live table, create it first with
 * `create index concurrently` under the same name: this statement then skips it.
 */
export class Migration20261126040154_partner_notification_index extends Migration {
  override name = 'Migration20261126040154_partner_notification_index';

  override up(): void | Promise<void> {
    this.addSql(
      `create index if not exists "notification_partner_id_id_index" on "notification" ("partner_id", "id");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "notification_partner_id_id_index";`);
  }
}
