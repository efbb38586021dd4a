import { Migration } from '@mikro-orm/migrations';

/**
 * Keyed email hashes: `customer.email_hash_version` (1 = plain SHA-256 from before, 2 = HMAC-SHA256
 * under the server secret; a stored version-1 hash is replaced when a lead brings the email again),
 * and the generated secret of installations without EMAIL_HASH_SECRET.
 */
export class Migration20261123141500_email_hash extends Migration {
  override name = 'Migration20261123141500_email_hash';

  override up(): void | Promise<void> {
    this.addSql(`alter table "customer" add "email_hash_version" smallint null;`);
    this.addSql(`update "customer" set "email_hash_version" = 1 where "email_hash" is not null;`);
    this.addSql(`alter table "service_instance" add "email_hash_secret" varchar(255) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "customer" drop column "email_hash_version";`);
    this.addSql(`alter table "service_instance" drop column "email_hash_secret";`);
  }
}
