import { Migration } from '@mikro-orm/migrations';

/**
 * `webhook_event.requeued_at`: when a replay or the inbox sweeper last handed the row to the queue
 * again. The sweeper measures a pending row's age from it, so a replayed old event is no longer run
 * a second time by a sweep job while its replay job holds it.
 */
export class Migration20261124073000_webhook_requeued_at extends Migration {
  override name = 'Migration20261124073000_webhook_requeued_at';

  override up(): void | Promise<void> {
    this.addSql(`alter table "webhook_event" add "requeued_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "webhook_event" drop column "requeued_at";`);
  }
}
