import { Migration } from '@mikro-orm/migrations';

/**
 * Signed statement checkpoints (docs/statement-verification.md): the deployment's Ed25519 keys
 * (private keys sealed; retired keys kept for verifying older checkpoints) and each partner's
 * signed statement heads; the scheduled sweep's progress on the installation's row.
 */
export class Migration20261127124759_statement_checkpoints extends Migration {
  override name = 'Migration20261127124759_statement_checkpoints';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "statement_key" ("id" serial primary key, "key_id" varchar(16) not null, "public_key" varchar(255) not null, "private_key_sealed" text not null, "created_at" timestamptz not null, "retired_at" timestamptz null);`,
    );
    this.addSql(`alter table "statement_key" add constraint "statement_key_key_id_unique" unique ("key_id");`);
    this.addSql(
      `create table "statement_checkpoint" ("id" serial primary key, "program_id" int not null, "partner_id" int not null, "entry_id" int not null, "lines" int not null, "hash" varchar(64) not null, "digest" varchar(64) not null, "balances" text not null, "reason" varchar(255) not null, "key_id" varchar(16) not null, "signature" varchar(128) not null, "signed_at" timestamptz not null);`,
    );
    this.addSql(
      `create index "statement_checkpoint_partner_id_entry_id_index" on "statement_checkpoint" ("partner_id", "entry_id");`,
    );
    this.addSql(
      `alter table "statement_checkpoint" add constraint "statement_checkpoint_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );
    this.addSql(
      `alter table "statement_checkpoint" add constraint "statement_checkpoint_partner_id_foreign" foreign key ("partner_id") references "partner" ("id");`,
    );
    this.addSql(
      `alter table "service_instance" add column "statement_swept_entry_id" int not null default 0, add column "statement_swept_at" timestamptz null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "service_instance" drop column "statement_swept_entry_id", drop column "statement_swept_at";`,
    );
    this.addSql(`drop table if exists "statement_checkpoint" cascade;`);
    this.addSql(`drop table if exists "statement_key" cascade;`);
  }
}
