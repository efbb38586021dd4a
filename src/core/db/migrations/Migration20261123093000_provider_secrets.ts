import { Migration } from '@mikro-orm/migrations';

/**
 * Several signing secrets per provider connection. Each existing connection's single secret
 * becomes its one `live` secret, so connected providers keep verifying across the upgrade.
 */
export class Migration20261123093000_provider_secrets extends Migration {
  override name = 'Migration20261123093000_provider_secrets';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "provider_secret" ("id" serial primary key, "connection_id" int not null, "label" varchar(255) not null, "secret" text not null, "created_at" timestamptz not null, "expires_at" timestamptz null);`,
    );
    this.addSql(`create index "provider_secret_connection_id_index" on "provider_secret" ("connection_id");`);
    this.addSql(
      `alter table "provider_secret" add constraint "provider_secret_connection_id_foreign" foreign key ("connection_id") references "provider_connection" ("id");`,
    );
    this.addSql(
      `insert into "provider_secret" ("connection_id", "label", "secret", "created_at", "expires_at") select "id", 'live', "signing_secret", "updated_at", null from "provider_connection";`,
    );
    this.addSql(`alter table "provider_connection" drop column "signing_secret";`);
  }

  override down(): void | Promise<void> {
    // Back to one secret: the newest unexpired `live` one (else the newest of any kind).
    this.addSql(`alter table "provider_connection" add column "signing_secret" varchar(255) null;`);
    this.addSql(
      `update "provider_connection" c set "signing_secret" = (select s."secret" from "provider_secret" s where s."connection_id" = c."id" order by (s."label" = 'live' and s."expires_at" is null) desc, s."id" desc limit 1);`,
    );
    this.addSql(`delete from "provider_connection" where "signing_secret" is null;`);
    this.addSql(`alter table "provider_connection" alter column "signing_secret" set not null;`);
    this.addSql(`drop table "provider_secret" cascade;`);
  }
}
