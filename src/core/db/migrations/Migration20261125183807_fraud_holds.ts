import { Migration } from '@mikro-orm/migrations';

/**
 * Fraud holds: the program's `fraud_rules`, the `hold` record of a held commission and whether a
 * customer's lead email is disposable. Nullable columns without defaults: no table rewrite.
 */
export class Migration20261125183807_fraud_holds extends Migration {
  override name = 'Migration20261125183807_fraud_holds';

  override up(): void | Promise<void> {
    this.addSql(`alter table "program" add "fraud_rules" jsonb null;`);
    this.addSql(`alter table "customer" add "email_disposable" boolean null;`);
    this.addSql(`alter table "commission" add "hold" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "commission" drop column "hold";`);
    this.addSql(`alter table "customer" drop column "email_disposable";`);
    this.addSql(`alter table "program" drop column "fraud_rules";`);
  }
}
