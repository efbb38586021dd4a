import { Migration } from '@mikro-orm/migrations';

/**
 * Staff users with per-program roles, their invites and admin API tokens, the staff session, and
 * the append-only audit log: a trigger refuses every UPDATE, DELETE and TRUNCATE of `audit_entry`,
 * so not even a bug in the service (or a query typed by hand through its role) can rewrite history.
 */
export class Migration20261127125031_staff_and_audit extends Migration {
  override name = 'Migration20261127125031_staff_and_audit';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "audit_entry" ("id" serial primary key, "program_id" int null, "actor_kind" varchar(255) not null, "staff_user_id" int null, "actor_email" varchar(255) null, "token_id" int null, "via" varchar(255) not null, "ip" varchar(255) not null, "user_agent" text null, "action" varchar(255) not null, "path" text not null, "status" int not null, "before" jsonb null, "after" jsonb null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "audit_entry_program_id_id_index" on "audit_entry" ("program_id", "id");`);
    this.addSql(
      `create function audit_entry_append_only() returns trigger language plpgsql as $$ ` +
        `begin raise exception 'audit_entry is append-only (% refused)', tg_op; end $$;`,
    );
    this.addSql(
      `create trigger audit_entry_no_update_delete before update or delete on "audit_entry" ` +
        `for each row execute function audit_entry_append_only();`,
    );
    this.addSql(
      `create trigger audit_entry_no_truncate before truncate on "audit_entry" ` +
        `for each statement execute function audit_entry_append_only();`,
    );

    this.addSql(
      `create table "staff_user" ("id" serial primary key, "email" varchar(255) not null, "password_hash" varchar(255) null, "totp_secret" text null, "totp_enabled_at" timestamptz null, "totp_last_step" bigint null, "created_at" timestamptz not null);`,
    );
    this.addSql(`alter table "staff_user" add constraint "staff_user_email_unique" unique ("email");`);

    this.addSql(
      `create table "staff_token" ("id" serial primary key, "user_id" int not null, "program_id" int not null, "role" varchar(255) not null, "name" varchar(255) not null, "token_hash" varchar(255) not null, "prefix" varchar(255) not null, "created_at" timestamptz not null, "last_used_at" timestamptz null, "revoked_at" timestamptz null);`,
    );
    this.addSql(`create index "staff_token_user_id_index" on "staff_token" ("user_id");`);
    this.addSql(`alter table "staff_token" add constraint "staff_token_token_hash_unique" unique ("token_hash");`);

    this.addSql(
      `create table "staff_role" ("id" serial primary key, "user_id" int not null, "program_id" int not null, "role" varchar(255) not null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "staff_role_user_id_index" on "staff_role" ("user_id");`);
    this.addSql(`create index "staff_role_program_id_index" on "staff_role" ("program_id");`);
    this.addSql(
      `alter table "staff_role" add constraint "staff_role_user_id_program_id_unique" unique ("user_id", "program_id");`,
    );

    this.addSql(
      `create table "staff_invite" ("id" serial primary key, "user_id" int not null, "token_hash" varchar(255) not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "used_at" timestamptz null);`,
    );
    this.addSql(`create index "staff_invite_user_id_index" on "staff_invite" ("user_id");`);
    this.addSql(`alter table "staff_invite" add constraint "staff_invite_token_hash_unique" unique ("token_hash");`);

    this.addSql(`alter table "session" add "staff_user_id" int null;`);
    this.addSql(
      `alter table "session" add constraint "session_staff_user_id_foreign" foreign key ("staff_user_id") references "staff_user" ("id") on delete set null;`,
    );
    this.addSql(`create index "session_staff_user_id_index" on "session" ("staff_user_id");`);

    this.addSql(
      `alter table "staff_token" add constraint "staff_token_user_id_foreign" foreign key ("user_id") references "staff_user" ("id");`,
    );
    this.addSql(
      `alter table "staff_token" add constraint "staff_token_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );

    this.addSql(
      `alter table "staff_role" add constraint "staff_role_user_id_foreign" foreign key ("user_id") references "staff_user" ("id");`,
    );
    this.addSql(
      `alter table "staff_role" add constraint "staff_role_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );

    this.addSql(
      `alter table "staff_invite" add constraint "staff_invite_user_id_foreign" foreign key ("user_id") references "staff_user" ("id");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "staff_token" drop constraint "staff_token_user_id_foreign";`);
    this.addSql(`alter table "staff_role" drop constraint "staff_role_user_id_foreign";`);
    this.addSql(`alter table "staff_invite" drop constraint "staff_invite_user_id_foreign";`);
    this.addSql(`alter table "session" drop constraint "session_staff_user_id_foreign";`);

    this.addSql(`drop table if exists "audit_entry" cascade;`);
    this.addSql(`drop function if exists audit_entry_append_only();`);
    this.addSql(`drop table if exists "staff_user" cascade;`);
    this.addSql(`drop table if exists "staff_token" cascade;`);
    this.addSql(`drop table if exists "staff_role" cascade;`);
    this.addSql(`drop table if exists "staff_invite" cascade;`);

    this.addSql(`drop index "session_staff_user_id_index";`);
    this.addSql(`alter table "session" drop column "staff_user_id";`);
  }
}
