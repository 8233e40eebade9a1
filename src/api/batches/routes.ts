import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { GatewayError } from '../../errors.js';
import { toFastifyValidator } from '../../validation/compile.js';
import { openaiErrors } from '../embeddings/errors.js';
import { BatchRunner } from '../../batches/batch-runner.js';
import { batchSettingsOf } from '../../batches/batch-settings.js';
import { newBatchId, toBatchObject, type BatchRow } from '../../batches/batch.js';
import { worstCaseOfFile } from '../../batches/batch-estimate.js';
import type { StoredFile } from '../../files/file-store.js';
import { BatchList, BatchObject, CreateBatchRequest, ListQuery, validateCreateBatch, type CreateBatch } from './schemas.js';

/** Batches are the key's own resources: authenticated, OpenAI's envelope, no model admission (each line is admitted when it runs). */
const BATCH_ROUTE = { errors: openaiErrors } as const;
const IdParams = Type.Object({ id: Type.String() });
const doc = (summary: string, extra: Record<string, unknown> = {}) => ({ summary, tags: ['batches'], security: [{ bearer: [] }], ...extra });

/**
 * OpenAI's Batch API (issue 46): POST/GET /v1/batches, GET /v1/batches/{id}, POST
 * /v1/batches/{id}/cancel. A batch is accepted at once (`validating`); a runner in the background
 * validates its input file and runs its lines through the gateway's own endpoints as the key
 * (batches/batch-runner.ts). Another key's batch or file reads as absent (404).
 */
export async function batchesRoutes(app: FastifyInstance): Promise<void> {
  const settings = batchSettingsOf(app.gateway.config);
  const runner = new BatchRunner(app, () => app.gateway.files, settings);
  app.addHook('onReady', async () => runner.start());
  // Before the server closes: lines in flight still run through the app's own routes.
  app.addHook('preClose', async () => runner.stop());

  const findBatch = async (request: FastifyRequest): Promise<BatchRow> => {
    const { id } = request.params as { id: string };
    const batch = await runner.repo.findForKey(id, request.gw.key!.id);
    if (!batch) throw new GatewayError('GW_RESOURCE_NOT_FOUND', `No batch found with id '${id.slice(0, 200)}'.`, { param: 'batch_id' });
    return batch;
  };

  app.post(
    '/v1/batches',
    {
      config: BATCH_ROUTE,
      schema: doc('Create a batch', {
        description: 'Accepted at once with status `validating`; the input file is then read line by line. Lines run through the gateway itself (or a vendor batch API) as this key, billed at the batch price.',
        body: CreateBatchRequest,
        response: { 200: BatchObject },
      }),
      validatorCompiler: () => toFastifyValidator(validateCreateBatch),
    },
    async (request) => {
      const create = request.body as CreateBatch;
      const key = request.gw.key!;
      const file = await inputFileOf(app, key.id, create.inputFileId);
      if (key.budgetUsd !== null) await checkBudget(app, key.id, key.budgetUsd, create, file);
      const now = app.gateway.now();
      const id = newBatchId(now);
      await runner.repo.insert({
        id,
        key_id: key.id,
        endpoint: create.endpoint,
        input_file_id: file.id,
        completion_window: '24h',
        created_at: now,
        expires_at: now + settings.windowMs,
        output_expires_after: create.outputExpiresAfter,
        metadata: create.metadata ? JSON.stringify(create.metadata) : null,
      });
      return toBatchObject((await runner.repo.find(id))!);
    },
  );

  app.get('/v1/batches/:id', { config: BATCH_ROUTE, schema: doc('Retrieve a batch', { params: IdParams, response: { 200: BatchObject } }) }, async (request) => toBatchObject(await findBatch(request)));

  app.post(
    '/v1/batches/:id/cancel',
    { config: BATCH_ROUTE, schema: doc('Cancel a batch', { description: 'No new line starts once this answers; lines in flight finish. `cancelling`, then `cancelled` with partial results.', params: IdParams, response: { 200: BatchObject } }) },
    async (request) => {
      const batch = await findBatch(request);
      if (batch.status === 'cancelling' || batch.status === 'cancelled') return toBatchObject(batch);
      if (!(await runner.repo.transition(batch.id, ['validating', 'in_progress'], 'cancelling', app.gateway.now()))) {
        const now = (await runner.repo.find(batch.id))!;
        if (now.status !== 'cancelling') throw new GatewayError('GW_CONFLICT', `Cannot cancel a batch with status '${now.status}'.`);
      }
      return toBatchObject((await runner.repo.find(batch.id))!);
    },
  );

  app.get(
    '/v1/batches',
    { config: BATCH_ROUTE, schema: doc('List batches (newest first)', { querystring: ListQuery, response: { 200: BatchList } }) },
    async (request) => {
      const query = request.query as { after?: string; limit?: string };
      const limit = query.limit === undefined ? 20 : Number(query.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new GatewayError('GW_REQ_INVALID_PARAM', "'limit' must be from 1 to 100", { param: 'limit' });
      const page = await runner.repo.list(request.gw.key!.id, query.after, limit);
      const data = page.data.map(toBatchObject);
      return { object: 'list' as const, data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: page.hasMore };
    },
  );
}

/** The key's own input file of purpose `batch`; any other key's, or none, reads as absent. */
async function inputFileOf(app: FastifyInstance, keyId: string, fileId: string): Promise<StoredFile> {
  const file = await app.gateway.files.get(keyId, fileId);
  if (!file) throw new GatewayError('GW_RESOURCE_NOT_FOUND', `No such File object: ${fileId.slice(0, 200)}`, { param: 'input_file_id' });
  if (file.purpose !== 'batch') throw new GatewayError('GW_REQ_INVALID_PARAM', `The file ${fileId} has purpose '${file.purpose}'; a batch reads a file of purpose 'batch'.`, { param: 'input_file_id' });
  return file;
}

/**
 * The file's worst case (batches/batch-estimate.ts) must fit in what is left of the key's budget,
 * refused as the sync endpoints refuse a request the budget cannot hold. Each line is held and
 * billed again when it runs.
 */
async function checkBudget(app: FastifyInstance, keyId: string, budgetUsd: number, create: CreateBatch, file: StoredFile): Promise<void> {
  const spent = await app.admission.budgets.spent(keyId);
  if (spent >= budgetUsd) throw new GatewayError('GW_QUOTA_EXCEEDED', `This API key has used its budget of ${budgetUsd} USD (${round(spent)} USD spent).`);
  const content = await app.gateway.files.open(keyId, file.id);
  const worst = content ? await worstCaseOfFile(app.gateway, create.endpoint, content) : 0;
  if (spent + worst > budgetUsd) {
    throw new GatewayError('GW_QUOTA_EXCEEDED', `This batch could cost up to ${round(worst)} USD, more than is left of this API key's budget of ${budgetUsd} USD (${round(spent)} USD spent). Split the file or lower max_tokens.`);
  }
}

const round = (usd: number) => Math.round(usd * 1e6) / 1e6;
