import { Migration } from '@mikro-orm/migrations';

/** Imports from other tools: their runs (import_run), the source ids of imported rows, a customer's provider id. */
export class Migration20261206050814_import_runs extends Migration {
  override name = 'Migration20261206050814_import_runs';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "import_source_row" ("id" serial primary key, "program_id" int not null, "source" varchar(255) not null, "kind" varchar(255) not null, "source_id" varchar(255) not null, "row_id" int not null, "created_at" timestamptz not null);`,
    );
    this.addSql(
      `alter table "import_source_row" add constraint "import_source_row_program_id_source_kind_source_id_unique" unique ("program_id", "source", "kind", "source_id");`,
    );
    this.addSql(
      `create table "import_run" ("id" serial primary key, "program_id" int not null, "source" varchar(255) not null, "dry_run" boolean not null, "status" varchar(255) not null, "created_count" int not null default 0, "skipped_count" int not null default 0, "problem_count" int not null default 0, "report" jsonb not null, "error" text null, "started_at" timestamptz not null, "finished_at" timestamptz null);`,
    );
    this.addSql(`create index "import_run_program_id_started_at_index" on "import_run" ("program_id", "started_at");`);
    this.addSql(`alter table "customer" add "provider_customer_id" varchar(255) null;`);
    this.addSql(
      `create index "customer_provider_customer_id_index" on "customer" ("program_id", "provider_customer_id") where provider_customer_id is not null;`,
    );
    this.addSql(
      `alter table "import_source_row" add constraint "import_source_row_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );
    this.addSql(
      `alter table "import_run" add constraint "import_run_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "import_source_row" cascade;`);
    this.addSql(`drop table if exists "import_run" cascade;`);
    this.addSql(`drop index "customer_provider_customer_id_index";`);
    this.addSql(`alter table "customer" drop column "provider_customer_id";`);
  }
}
