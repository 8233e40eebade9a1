// A start's upgrade as a process of its own, for test/db/killed-upgrade.test.ts to SIGKILL: the
// built store code (dist/, as `npm start` runs it) brings the store named on the command line up
// to date. "migrating" marks the moment the upgrade begins (module loading is not part of it).
import { connectPostgres, connectSqlite } from '../../dist/db/connect.js';

const [kind, target] = process.argv.slice(2);
process.stdout.write('migrating\n');
const db = kind === 'sqlite' ? await connectSqlite(target) : await connectPostgres(target, 1);
await db.destroy();
process.stdout.write('migrated\n');
