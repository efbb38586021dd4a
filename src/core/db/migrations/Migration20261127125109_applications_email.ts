import { Migration } from '@mikro-orm/migrations';

/**
 * Partner applications (the public form, the approval queue, terms accepted on the partner) and
 * email (the outbox, program sender settings, partner preferences).
 */
export class Migration20261127125109_applications_email extends Migration {
  override name = 'Migration20261127125109_applications_email';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "partner_email_prefs" ("partner_id" int not null, "commission_digest" varchar(255) not null default 'daily', "payout_emails" boolean not null default true, "statement_emails" boolean not null default true, "unsubscribed_at" timestamptz null, "digest_through" timestamptz null, primary key ("partner_id"));`,
    );

    this.addSql(
      `create table "partner_application" ("id" serial primary key, "program_id" int not null, "name" varchar(255) not null, "email" varchar(255) not null, "answers" jsonb not null, "terms_version" varchar(255) null, "terms_accepted_at" timestamptz null, "status" varchar(255) not null default 'pending', "reason" text null, "partner_id" int null, "created_at" timestamptz not null, "decided_at" timestamptz null);`,
    );
    this.addSql(
      `create index "partner_application_program_id_status_id_index" on "partner_application" ("program_id", "status", "id");`,
    );
    this.addSql(
      `alter table "partner_application" add constraint "partner_application_program_id_email_unique" unique ("program_id", "email");`,
    );

    this.addSql(
      `create table "email_settings" ("program_id" int not null, "sender_name" varchar(255) null, "reply_to" varchar(255) null, "updated_at" timestamptz not null, primary key ("program_id"));`,
    );

    this.addSql(
      `create table "email_message" ("id" serial primary key, "program_id" int not null, "partner_id" int null, "kind" varchar(255) not null, "dedupe_key" varchar(255) not null, "to_address" varchar(255) not null, "from_name" varchar(255) null, "reply_to" varchar(255) null, "subject" text not null, "text_body" text not null, "html_body" text not null, "unsubscribe_url" text null, "sensitive" boolean not null default false, "created_at" timestamptz not null, "attempts" int not null default 0, "next_attempt_at" timestamptz not null, "lease_until" timestamptz null, "sent_at" timestamptz null, "failed_at" timestamptz null, "last_error" text null);`,
    );
    this.addSql(`create index "email_message_program_id_index" on "email_message" ("program_id");`);
    this.addSql(`alter table "email_message" add constraint "email_message_dedupe_key_unique" unique ("dedupe_key");`);
    this.addSql(
      `create index "email_message_sent_at_next_attempt_at_index" on "email_message" ("sent_at", "next_attempt_at");`,
    );

    this.addSql(
      `create table "application_form" ("program_id" int not null, "enabled" boolean not null default false, "intro" text null, "fields" jsonb not null, "terms_text" text null, "terms_version" varchar(255) null, "auto_approve" boolean not null default false, "updated_at" timestamptz not null, primary key ("program_id"));`,
    );

    this.addSql(
      `alter table "partner" add "terms_version" varchar(255) null, add "terms_accepted_at" timestamptz null;`,
    );

    this.addSql(
      `alter table "partner_email_prefs" add constraint "partner_email_prefs_partner_id_foreign" foreign key ("partner_id") references "partner" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "partner_application" add constraint "partner_application_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );
    this.addSql(
      `alter table "partner_application" add constraint "partner_application_partner_id_foreign" foreign key ("partner_id") references "partner" ("id") on delete set null;`,
    );

    this.addSql(
      `alter table "email_settings" add constraint "email_settings_program_id_foreign" foreign key ("program_id") references "program" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "email_message" add constraint "email_message_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );

    this.addSql(
      `alter table "application_form" add constraint "application_form_program_id_foreign" foreign key ("program_id") references "program" ("id") on update cascade on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "partner_email_prefs" cascade;`);
    this.addSql(`drop table if exists "partner_application" cascade;`);
    this.addSql(`drop table if exists "email_settings" cascade;`);
    this.addSql(`drop table if exists "email_message" cascade;`);
    this.addSql(`drop table if exists "application_form" cascade;`);

    this.addSql(`alter table "partner" drop column "terms_version", drop column "terms_accepted_at";`);
  }
}
