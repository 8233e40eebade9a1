import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/services.js';

/** Issue 46 item 1: with DATABASE_URL a file uploaded through one instance is served by every other. */
describe('/v1/files on PostgreSQL, two instances', () => {
  let database: TestDatabase;
  const dirs: string[] = [];
  let a: TestGateway;
  let b: TestGateway;
  const clientOf = (gateway: TestGateway) => new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });

  beforeAll(async () => {
    database = await createTestDatabase();
    // Separate data directories: nothing but the database is shared.
    for (let i = 0; i < 2; i++) dirs.push(mkdtempSync(join(tmpdir(), 'gateway-files-pg-')));
    a = await startTestGateway({ dataDir: dirs[0], env: { databaseUrl: database.url } });
    b = await startTestGateway({ dataDir: dirs[1], env: { databaseUrl: database.url } });
  });
  afterAll(async () => {
    await Promise.all([a?.stop({ keepData: true }), b?.stop({ keepData: true })]);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await database?.drop();
  });

  it('serves a file uploaded on one instance from the other, in 1 MB rows, and a delete on either removes it', async () => {
    // Three content rows' worth, not a multiple of the row size.
    const content = Buffer.alloc(2 * 1024 * 1024 + 12_345);
    for (let i = 0; i < content.length; i++) content[i] = (i * 31) % 251;
    const file = await clientOf(a).files.create({ file: await toFile(content, 'corpus.bin'), purpose: 'user_data' });
    expect(await clientOf(b).files.retrieve(file.id)).toEqual(file);
    expect((await clientOf(b).files.list()).data.map((f) => f.id)).toEqual([file.id]);
    const back = Buffer.from(await (await clientOf(b).files.content(file.id)).arrayBuffer());
    expect(back.equals(content)).toBe(true);
    expect((await database.db.selectFrom('file_chunks').select('seq').where('file_id', '=', file.id).execute()).map((row) => row.seq).sort()).toEqual([0, 1, 2]);

    expect(await clientOf(b).files.delete(file.id)).toMatchObject({ deleted: true });
    await expect(clientOf(a).files.retrieve(file.id)).rejects.toMatchObject({ status: 404 });
    expect(await database.db.selectFrom('file_chunks').select('seq').execute()).toEqual([]);
  });
});
