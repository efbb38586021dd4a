// Dev tool: diffs the entities against a scratch PostgreSQL database that has every committed
// migration applied, and writes the difference as a new migration in src/core/db/migrations.
// Usage: DATABASE_URL=postgres://... npm run make-migration -- [name]
import { createDb, migrate } from '../core/db/orm.ts';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL (a scratch database) is required');
const db = await createDb({ databaseUrl: url, dataDir: 'memory://' });
await migrate(db);
const res = await db.orm.migrator.create('src/core/db/migrations', false, false, process.argv[2]);
console.log(res.fileName ? `wrote ${res.fileName}` : 'no changes');
await db.orm.close();
