import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { GatewayError } from '../../errors.js';
import type { StoredFile } from '../../files/file-store.js';
import { openaiErrors } from '../embeddings/errors.js';
import { toFileList, toFileObject } from './file-object.js';
import { receiveUpload, type UploadLimits } from './upload.js';
import { DEFAULT_BATCH_FILE_MAX_BYTES, DEFAULT_FILE_MAX_BYTES, FileDeleted, FileIdParams, FileList, FileListQueryString, FileObject, parseListQuery } from './schemas.js';

/** Expired files and abandoned uploads are removed this often (they already read as absent). */
const SWEEP_EVERY_MS = 10 * 60_000;
/** What a form adds around its file (boundaries, part headers, the other fields), allowed past the file's limit. */
const FORM_OVERHEAD_BYTES = 1024 * 1024;

/** Files answer in OpenAI's envelope, `param` naming the field; they are no model call, so no endpoint family and no usage event. */
const FILES_ROUTE = { errors: openaiErrors } as const;
const auth = { tags: ['files'], security: [{ bearer: [] }] };

/**
 * OpenAI's Files API (issue 46): upload, list, retrieve, content and delete, each key seeing only
 * its own files (another key's reads 404, as an unknown one). Multipart bodies are parsed in this
 * family only, streamed straight into the file store (deps.files).
 */
export async function filesRoutes(app: FastifyInstance): Promise<void> {
  await app.register(multipart);
  const store = app.gateway.files;
  const config = app.gateway.config;
  const limits: UploadLimits = { fileMaxBytes: config.fileMaxBytes ?? DEFAULT_FILE_MAX_BYTES, batchFileMaxBytes: config.batchFileMaxBytes ?? DEFAULT_BATCH_FILE_MAX_BYTES };
  let sweep: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    sweep = setInterval(() => void store.sweep?.().catch((error: unknown) => app.log.warn({ err: error }, 'removing expired files failed; tried again later')), SWEEP_EVERY_MS);
    sweep.unref();
  });
  app.addHook('onClose', async () => clearInterval(sweep));

  const keyIdOf = (request: FastifyRequest): string => request.gw.key!.id;
  const found = async (request: FastifyRequest): Promise<StoredFile> => {
    const { id } = request.params as { id: string };
    const file = await store.get(keyIdOf(request), id);
    if (!file) throw new GatewayError('GW_RESOURCE_NOT_FOUND', `No such File object: ${id}`, { param: 'id' });
    return file;
  };

  app.post(
    '/v1/files',
    {
      // Streamed into the store as it arrives: not charged against the bodies held in memory.
      config: { ...FILES_ROUTE, streamsBody: true },
      schema: {
        summary: 'Upload a file',
        description:
          'multipart/form-data with `file` and `purpose` (and optionally `expires_after[anchor]=created_at`, `expires_after[seconds]` 3600 to 2592000). ' +
          'A `batch` file must be JSONL named `.jsonl`; it expires after 30 days unless told otherwise, other files are kept until deleted.',
        ...auth,
        response: { 200: FileObject },
      },
    },
    async (request, reply) => {
      const declared = Number(request.headers['content-length']);
      try {
        if (declared > limits.fileMaxBytes + FORM_OVERHEAD_BYTES) throw new GatewayError('GW_REQ_TOO_LARGE', `The file is larger than the limit of ${limits.fileMaxBytes} bytes`, { param: 'file' });
        return toFileObject(await receiveUpload(request, store, keyIdOf(request), limits));
      } catch (error) {
        // The rest of a refused upload is not read: the connection closes once the answer is sent.
        reply.header('connection', 'close');
        throw error;
      }
    },
  );

  app.get(
    '/v1/files',
    { config: FILES_ROUTE, schema: { summary: 'List your files', description: 'Newest first unless `order=asc`; page with `after` (the last id of the previous page).', ...auth, querystring: FileListQueryString, response: { 200: FileList } } },
    async (request) => toFileList(await store.list(keyIdOf(request), parseListQuery(request.query as never))),
  );

  app.get('/v1/files/:id', { config: FILES_ROUTE, schema: { summary: 'Retrieve a file', ...auth, params: FileIdParams, response: { 200: FileObject } } }, async (request) => toFileObject(await found(request)));

  app.get('/v1/files/:id/content', { config: FILES_ROUTE, schema: { summary: "Download a file's content", ...auth, params: FileIdParams } }, async (request, reply) => {
    const file = await found(request);
    const content = await store.open(keyIdOf(request), file.id);
    if (!content) throw new GatewayError('GW_RESOURCE_NOT_FOUND', `No such File object: ${file.id}`, { param: 'id' });
    return reply
      .type('application/octet-stream')
      .header('content-length', String(file.bytes))
      .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.filename)}`)
      .send(Readable.from(content, { objectMode: false }));
  });

  app.delete('/v1/files/:id', { config: FILES_ROUTE, schema: { summary: 'Delete a file', ...auth, params: FileIdParams, response: { 200: FileDeleted } } }, async (request) => {
    const { id } = request.params as { id: string };
    if (!(await store.delete(keyIdOf(request), id))) throw new GatewayError('GW_RESOURCE_NOT_FOUND', `No such File object: ${id}`, { param: 'id' });
    return { id, object: 'file' as const, deleted: true };
  });
}
