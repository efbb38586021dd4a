import { Migration } from '@mikro-orm/migrations';

export class Migration20261123091142_portal extends Migration {
  override name = 'Migration20261123091142_portal';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "partner_invite" ("id" serial primary key, "partner_id" int not null, "token_hash" varchar(255) not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "used_at" timestamptz null);`,
    );
    this.addSql(`create index "partner_invite_partner_id_index" on "partner_invite" ("partner_id");`);
    this.addSql(
      `alter table "partner_invite" add constraint "partner_invite_token_hash_unique" unique ("token_hash");`,
    );

    this.addSql(
      `create table "session" ("id" serial primary key, "kind" varchar(255) not null, "token_hash" varchar(255) not null, "csrf_token" varchar(255) not null, "partner_id" int null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "ended_at" timestamptz null);`,
    );
    this.addSql(`alter table "session" add constraint "session_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "session_partner_id_index" on "session" ("partner_id");`);
    this.addSql(`create index "session_expires_at_index" on "session" ("expires_at");`);

    this.addSql(`alter table "partner" add "password_hash" varchar(255) null;`);

    this.addSql(`alter table "notification" add "read_at" timestamptz null;`);

    this.addSql(
      `alter table "partner_invite" add constraint "partner_invite_partner_id_foreign" foreign key ("partner_id") references "partner" ("id");`,
    );

    this.addSql(
      `alter table "session" add constraint "session_partner_id_foreign" foreign key ("partner_id") references "partner" ("id") on delete set null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "partner_invite" cascade;`);
    this.addSql(`drop table if exists "session" cascade;`);

    this.addSql(`alter table "notification" drop column "read_at";`);

    this.addSql(`alter table "partner" drop column "password_hash";`);
  }
}
