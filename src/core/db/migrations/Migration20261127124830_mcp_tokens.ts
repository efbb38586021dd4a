import { Migration } from '@mikro-orm/migrations';

/** MCP tokens: one program's, a scope each, stored as a SHA-256 hash (mcp-token.ts). A new table. */
export class Migration20261127124830_mcp_tokens extends Migration {
  override name = 'Migration20261127124830_mcp_tokens';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "mcp_token" ("id" serial primary key, "program_id" int not null, "scope" varchar(255) not null, "name" varchar(255) null, "token_hash" varchar(255) not null, "prefix" varchar(255) not null, "created_at" timestamptz not null, "revoked_at" timestamptz null);`,
    );
    this.addSql(`create index "mcp_token_program_id_index" on "mcp_token" ("program_id");`);
    this.addSql(`alter table "mcp_token" add constraint "mcp_token_token_hash_unique" unique ("token_hash");`);
    this.addSql(
      `alter table "mcp_token" add constraint "mcp_token_program_id_foreign" foreign key ("program_id") references "program" ("id");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "mcp_token" cascade;`);
  }
}
