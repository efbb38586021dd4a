import { Migration } from '@mikro-orm/migrations';

/**
 * A provider connection's API key, sealed (sealed-secrets.ts), and the hint shown instead of it.
 * Nullable columns without defaults: no table rewrite.
 */
export class Migration20261125203057_provider_api_key extends Migration {
  override name = 'Migration20261125203057_provider_api_key';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "provider_connection" add "api_key_sealed" text null, add "api_key_hint" varchar(255) null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "provider_connection" drop column "api_key_sealed", drop column "api_key_hint";`);
  }
}
