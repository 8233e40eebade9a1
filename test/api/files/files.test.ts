import { existsSync, readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../helpers/admin.js';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';

const FILE_MAX = 4096;
const BATCH_MAX = 2048;
const jsonl = (lines: number): Buffer => Buffer.from(Array.from({ length: lines }, (_, i) => JSON.stringify({ custom_id: `r${i}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'delta-4.1' } })).join('\n') + '\n');

/** A raw multipart upload, for forms the SDK does not send (fields first, no file, a bad expiry). */
async function postForm(gateway: TestGateway, parts: Array<[string, string | Blob, string?]>, secret = TEST_KEY) {
  const form = new FormData();
  for (const [name, value, filename] of parts) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, value, filename);
  }
  const response = await fetch(`${gateway.url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${secret}` }, body: form });
  return { status: response.status, headers: response.headers, json: (await response.json()) as any };
}

/** Issue 46 item 1: OpenAI's Files API through the official SDK, per key, within OpenAI's limits (lowered here). */
describe('/v1/files', () => {
  let gateway: TestGateway;
  let client: OpenAI;
  const storedRows = async () => (await gateway.deps.db.selectFrom('files').select('id').execute()).length;
  /** The files whose content is kept: in the data directory, or in the database on PostgreSQL (GATEWAY_TEST_DATABASE=postgres). */
  const onDisk = async (): Promise<string[]> => {
    if (gateway.deps.config.databaseUrl) return (await gateway.deps.db.selectFrom('file_chunks').select('file_id').distinct().execute()).map((row) => row.file_id);
    return existsSync(join(gateway.dataDir, 'files')) ? readdirSync(join(gateway.dataDir, 'files')) : [];
  };

  beforeAll(async () => {
    // A key may hold less of request bodies in memory than a file's size: uploads stream past that.
    gateway = await startTestGateway({ env: { fileMaxBytes: FILE_MAX, batchFileMaxBytes: BATCH_MAX, maxBodyBytesPerKey: 1000 } });
    client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(() => gateway?.stop());

  it('uploads, retrieves, lists, downloads and deletes a batch input file', async () => {
    const content = jsonl(3);
    const file = await client.files.create({ file: await toFile(content, 'input.jsonl'), purpose: 'batch' });
    expect(file).toEqual({
      id: expect.stringMatching(/^file-/),
      object: 'file',
      bytes: content.length,
      created_at: expect.any(Number),
      // A batch file expires after 30 days unless told otherwise (OpenAI's default).
      expires_at: file.created_at + 2_592_000,
      filename: 'input.jsonl',
      purpose: 'batch',
      status: 'processed',
      status_details: null,
    });
    expect(Math.abs(file.created_at - Date.now() / 1000)).toBeLessThan(60);
    expect(await client.files.retrieve(file.id)).toEqual(file);
    const download = await client.files.content(file.id);
    expect(download.headers.get('content-type')).toBe('application/octet-stream');
    expect(await download.text()).toBe(content.toString());
    expect((await client.files.list()).data.map((f) => f.id)).toContain(file.id);

    expect(await client.files.delete(file.id)).toEqual({ id: file.id, object: 'file', deleted: true });
    await expect(client.files.retrieve(file.id)).rejects.toMatchObject({ status: 404 });
    await expect(client.files.content(file.id)).rejects.toMatchObject({ status: 404 });
    await expect(client.files.delete(file.id)).rejects.toMatchObject({ status: 404 });
    expect((await client.files.list()).data.map((f) => f.id)).not.toContain(file.id);
    expect(await onDisk()).toEqual([]);
  });

  it('pages the list newest first (or oldest first), filters by purpose, and the SDK walks every page', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await client.files.create({ file: await toFile(Buffer.from(`note ${i}`), `note-${i}.txt`), purpose: 'user_data' })).id);
    const batch = await client.files.create({ file: await toFile(jsonl(1), 'one.jsonl'), purpose: 'batch' });

    const first = await client.files.list({ purpose: 'user_data', limit: 2 });
    expect(first.data.map((f) => f.id)).toEqual([ids[4], ids[3]]);
    expect(first.has_more).toBe(true);
    const walked: string[] = [];
    for await (const file of client.files.list({ purpose: 'user_data', limit: 2 })) walked.push(file.id);
    expect(walked).toEqual([...ids].reverse());
    const ascending: string[] = [];
    for await (const file of client.files.list({ purpose: 'user_data', limit: 3, order: 'asc' })) ascending.push(file.id);
    expect(ascending).toEqual(ids);
    const raw = await call(gateway, 'GET', `/v1/files?purpose=batch`);
    expect(raw.json).toEqual({ object: 'list', data: [expect.objectContaining({ id: batch.id })], first_id: batch.id, last_id: batch.id, has_more: false });

    for (const limit of ['0', '10001', 'x']) {
      const refused = await call(gateway, 'GET', `/v1/files?limit=${limit}`);
      expect(refused.status).toBe(400);
      expect(refused.json.error).toMatchObject({ param: 'limit', type: 'invalid_request_error' });
    }
    expect((await call(gateway, 'GET', '/v1/files?purpose=nope')).json.error.param).toBe('purpose');
    for (const id of [...ids, batch.id]) await client.files.delete(id);
  });

  it("keeps each key's files to itself: another key gets 404 and an empty list", async () => {
    const mine = await client.files.create({ file: await toFile(jsonl(2), 'mine.jsonl'), purpose: 'batch' });
    const other = await createKey(gateway, { name: 'other' });
    const theirs = new OpenAI({ apiKey: other.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    await expect(theirs.files.retrieve(mine.id)).rejects.toMatchObject({ status: 404, param: 'id' });
    await expect(theirs.files.content(mine.id)).rejects.toMatchObject({ status: 404 });
    await expect(theirs.files.delete(mine.id)).rejects.toMatchObject({ status: 404 });
    expect((await theirs.files.list()).data).toEqual([]);
    const own = await theirs.files.create({ file: await toFile(Buffer.from('x'), 'x.txt'), purpose: 'user_data' });
    expect((await theirs.files.list()).data.map((f) => f.id)).toEqual([own.id]);
    expect((await client.files.list()).data.map((f) => f.id)).toEqual([mine.id]);
    expect(await client.files.retrieve(mine.id)).toMatchObject({ id: mine.id });
    await client.files.delete(mine.id);
    await theirs.files.delete(own.id);
  });

  it('refuses a file over the limit with 413 and keeps nothing of it', async () => {
    await expect(client.files.create({ file: await toFile(Buffer.alloc(FILE_MAX + 1, 0x61), 'big.txt'), purpose: 'user_data' })).rejects.toMatchObject({ status: 413, param: 'file' });
    // A batch input has its own, lower limit; this one is under the general one.
    await expect(client.files.create({ file: await toFile(jsonl(40).subarray(0, BATCH_MAX + 1), 'big.jsonl'), purpose: 'batch' })).rejects.toMatchObject({ status: 413, param: 'file' });
    // The same with the purpose sent before the file: refused as the bytes arrive.
    const early = await postForm(gateway, [['purpose', 'batch'], ['file', new Blob([Buffer.alloc(BATCH_MAX + 1, 0x61)]), 'big.jsonl']]);
    expect(early.status).toBe(413);
    // The rest of a refused upload is not read: the connection closes after the answer.
    expect(early.headers.get('connection')).toBe('close');
    expect(await storedRows()).toBe(0);
    expect(await onDisk()).toEqual([]);
    // Exactly at the limit is fine.
    const full = await client.files.create({ file: await toFile(Buffer.alloc(FILE_MAX, 0x61), 'full.txt'), purpose: 'user_data' });
    expect(full.bytes).toBe(FILE_MAX);
    await client.files.delete(full.id);
  });

  it('answers 400 naming the field: bad purpose, missing file, empty file, a batch file that is not .jsonl, a bad expiry', async () => {
    const refusals: Array<[string, () => Promise<unknown>]> = [
      ['purpose', async () => client.files.create({ file: await toFile(jsonl(1), 'a.jsonl'), purpose: 'nope' as never })],
      ['file', async () => client.files.create({ file: await toFile(Buffer.alloc(0), 'empty.jsonl'), purpose: 'batch' })],
      ['file', async () => client.files.create({ file: await toFile(jsonl(1), 'input.csv'), purpose: 'batch' })],
      ['expires_after[seconds]', async () => client.files.create({ file: await toFile(jsonl(1), 'a.jsonl'), purpose: 'batch', expires_after: { anchor: 'created_at', seconds: 60 } })],
    ];
    for (const [param, refusal] of refusals) await expect(refusal()).rejects.toMatchObject({ status: 400, param, type: 'invalid_request_error' });

    const noFile = await postForm(gateway, [['purpose', 'batch']]);
    expect(noFile).toMatchObject({ status: 400, json: { error: { param: 'file', message: "'file' is required" } } });
    const noPurpose = await postForm(gateway, [['file', new Blob(['x']), 'x.txt']]);
    expect(noPurpose).toMatchObject({ status: 400, json: { error: { param: 'purpose' } } });
    const fileAsText = await postForm(gateway, [['purpose', 'user_data'], ['file', 'not a file']]);
    expect(fileAsText).toMatchObject({ status: 400, json: { error: { param: 'file' } } });
    const json = await call(gateway, 'POST', '/v1/files', { purpose: 'batch' });
    expect(json.status).toBe(400);
    expect(json.json.error.param).toBe('file');
    expect(await storedRows()).toBe(0);
    expect(await onDisk()).toEqual([]);
  });

  it('streams an upload larger than a key may hold of request bodies, with or without Content-Length', async () => {
    const boundary = 'gw-chunked';
    const pieces = [
      `--${boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nuser_data\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="streamed.txt"\r\nContent-Type: text/plain\r\n\r\n`,
      'a'.repeat(1500),
      'b'.repeat(1500),
      `\r\n--${boundary}--\r\n`,
    ];
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const piece of pieces) controller.enqueue(new TextEncoder().encode(piece));
        controller.close();
      },
    });
    const chunked = await fetch(`${gateway.url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': `multipart/form-data; boundary=${boundary}` }, body, duplex: 'half' } as RequestInit);
    const file = (await chunked.json()) as any;
    expect(chunked.status, JSON.stringify(file)).toBe(200);
    expect(file).toMatchObject({ bytes: 3000, filename: 'streamed.txt', purpose: 'user_data' });
    const sized = await client.files.create({ file: await toFile(Buffer.alloc(3000, 0x61), 'sized.txt'), purpose: 'user_data' });
    expect(sized.bytes).toBe(3000);
    await client.files.delete(file.id);
    await client.files.delete(sized.id);
  });

  it('keeps nothing of an upload the client abandons midway', async () => {
    const boundary = 'gw-test-boundary';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.txt"\r\nContent-Type: text/plain\r\n\r\n`;
    const request = httpRequest(`${gateway.url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + FILE_MAX) } });
    request.on('error', () => undefined);
    request.write(head);
    request.write(Buffer.alloc(1000, 0x61));
    // The upload has begun (its row is there) before the client goes away.
    await expect.poll(storedRows).toBe(1);
    request.destroy();
    await expect.poll(storedRows).toBe(0);
    expect(await onDisk()).toEqual([]);
  });

  it('honours expires_after, and an expired file reads as absent', async () => {
    const file = await client.files.create({ file: await toFile(Buffer.from('short-lived'), 'note.txt'), purpose: 'user_data', expires_after: { anchor: 'created_at', seconds: 3600 } });
    expect(file.expires_at).toBe(file.created_at + 3600);
    const kept = await client.files.create({ file: await toFile(Buffer.from('kept'), 'kept.txt'), purpose: 'user_data' });
    expect(kept.expires_at).toBeNull();
    // An hour passes: the row's expiry is moved into the past rather than waited for.
    await gateway.deps.db.updateTable('files').set({ expires_at: Date.now() - 1 }).where('id', '=', file.id).execute();
    await expect(client.files.retrieve(file.id)).rejects.toMatchObject({ status: 404 });
    await expect(client.files.content(file.id)).rejects.toMatchObject({ status: 404 });
    expect((await client.files.list()).data.map((f) => f.id)).toEqual([kept.id]);
    expect(await gateway.deps.files.sweep!()).toBe(1);
    expect(await onDisk()).toEqual([kept.id]);
    await client.files.delete(kept.id);
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await call(gateway, 'GET', '/openapi.json', undefined, {})).json;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/files', '/v1/files/{id}', '/v1/files/{id}/content']));
    expect(doc.paths['/v1/files'].post.requestBody.content['multipart/form-data'].schema.required).toEqual(['file', 'purpose']);
    expect(JSON.stringify(doc.paths['/v1/files/{id}'].get.responses['404'])).toContain('OpenAIError');
  });
});
