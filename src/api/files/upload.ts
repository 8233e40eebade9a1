import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { Multipart, MultipartFile } from '@fastify/multipart';
import { GatewayError, isGatewayError } from '../../errors.js';
import type { FileStore, NewFile, StoredFile, UploadPurpose } from '../../files/file-store.js';
import { fileTooLarge } from '../../files/put-file.js';
import { BATCH_DEFAULT_EXPIRY_S, isJsonlName, parseExpiresAfter, parseUploadPurpose } from './schemas.js';

export interface UploadLimits {
  fileMaxBytes: number;
  batchFileMaxBytes: number;
}

/** A form's text fields are short (a purpose, a number): past this they are refused, not buffered. */
const MAX_FIELD_BYTES = 1024;
const MAX_FILENAME_CHARS = 1024;

const invalid = (param: string, message: string) => new GatewayError('GW_REQ_INVALID_PARAM', message, { param });

/**
 * Reads a `POST /v1/files` form as it streams in and keeps its `file` part in the store. The
 * fields may come before or after the file (the OpenAI SDK sends the file first): what is known
 * before the file is checked before a byte of it is kept; the rest once it has arrived, before
 * the store keeps it (`settle`), so a refused upload leaves nothing behind.
 */
export async function receiveUpload(request: FastifyRequest, store: FileStore, keyId: string, limits: UploadLimits): Promise<StoredFile> {
  if (!request.isMultipart()) throw invalid('file', "Send the file as multipart/form-data with the fields 'file' and 'purpose'");
  const fields = new Map<string, string>();
  const parts = request.parts({ limits: { fileSize: limits.fileMaxBytes + 1, fieldSize: MAX_FIELD_BYTES, fields: 20, parts: 40 } })[Symbol.asyncIterator]();
  const nextPart = async (): Promise<Multipart | undefined> => {
    const next = await parts.next().catch((error: unknown) => {
      throw isGatewayError(error) ? error : invalid('file', `The multipart form could not be read: ${(error as Error).message}`);
    });
    return next.done ? undefined : next.value;
  };
  const remember = (part: Multipart): void => {
    if (part.type === 'file') return void (part.file as Readable).resume();
    if (part.fieldname === 'file') throw invalid('file', "'file' must be a file (a form part with a filename)");
    if (part.valueTruncated) throw invalid(part.fieldname, `'${part.fieldname}' is longer than ${MAX_FIELD_BYTES} bytes`);
    fields.set(part.fieldname, String(part.value));
  };

  for (let part = await nextPart(); part; part = await nextPart()) {
    if (part.type !== 'file' || part.fieldname !== 'file') {
      remember(part);
      continue;
    }
    const file = part;
    // Checked now when the form sent them first; otherwise once the file has arrived.
    const early = fields.has('purpose') ? settleFields(fields, file.filename, undefined, limits) : undefined;
    const upload: NewFile = {
      keyId,
      filename: filenameOf(file),
      purpose: early?.purpose ?? 'user_data',
      expiresAt: null,
      content: file.file,
      maxBytes: early?.purpose === 'batch' ? limits.batchFileMaxBytes : limits.fileMaxBytes,
      settle: async ({ bytes, createdAt }) => {
        for (let rest = await nextPart(); rest; rest = await nextPart()) remember(rest);
        const settled = settleFields(fields, file.filename, bytes, limits);
        const seconds = settled.expirySeconds ?? (settled.purpose === 'batch' ? BATCH_DEFAULT_EXPIRY_S : undefined);
        return { purpose: settled.purpose, expiresAt: seconds === undefined ? null : createdAt + seconds };
      },
    };
    return store.put(upload);
  }
  throw invalid('file', "'file' is required");
}

/** The fields' verdict on the upload: its purpose and expiry, or the 400/413 naming what is wrong. */
function settleFields(fields: ReadonlyMap<string, string>, filename: string, bytes: number | undefined, limits: UploadLimits): { purpose: UploadPurpose; expirySeconds: number | undefined } {
  const purpose = parseUploadPurpose(fields.get('purpose'));
  const expirySeconds = parseExpiresAfter(fields.get('expires_after[anchor]'), fields.get('expires_after[seconds]'));
  if (purpose === 'batch' && !isJsonlName(filename)) throw invalid('file', `A file for purpose 'batch' must be JSONL with a .jsonl name; got '${filename}'`);
  if (bytes === 0) throw invalid('file', 'The file is empty (0 bytes)');
  if (bytes !== undefined && purpose === 'batch' && bytes > limits.batchFileMaxBytes) throw fileTooLarge(limits.batchFileMaxBytes);
  return { purpose, expirySeconds };
}

function filenameOf(file: MultipartFile): string {
  const name = file.filename;
  if (!name) throw invalid('file', "'file' needs a file name");
  if (name.length > MAX_FILENAME_CHARS) throw invalid('file', `The file name is longer than ${MAX_FILENAME_CHARS} characters`);
  return name;
}
