/**
 * Files a key uploaded (`/v1/files`, issue 46) and the batch output and error files the gateway
 * writes for it. Content is streamed in and out in chunks, never held whole in memory. The
 * embedded default keeps bytes under the data directory; with DATABASE_URL, a store every
 * instance sees. A file belongs to the key that owns it: every read takes that key's id, and a
 * file of another key, an expired or a deleted one reads as absent (404, never 403).
 */
export const FILE_PURPOSES = [
  'assistants',
  'batch',
  'fine-tune',
  'vision',
  'user_data',
  'evals',
] as const;
/** Purposes a client may upload with; the gateway itself writes `batch_output`. */
export type UploadPurpose = (typeof FILE_PURPOSES)[number];
export type FilePurpose = UploadPurpose | 'assistants_output' | 'batch_output' | 'fine-tune-results';

export interface StoredFile {
  /** `file-…` */
  id: string;
  keyId: string;
  bytes: number;
  /** Unix seconds. */
  createdAt: number;
  /** Unix seconds, or null when the file does not expire. */
  expiresAt: number | null;
  filename: string;
  purpose: FilePurpose;
}

export interface NewFile {
  keyId: string;
  filename: string;
  purpose: FilePurpose;
  expiresAt: number | null;
  /** The content, read once as it arrives. */
  content: AsyncIterable<Uint8Array>;
  /** Past this many bytes the write stops, nothing is kept, and `put` throws GW_REQ_TOO_LARGE. */
  maxBytes: number;
  /**
   * Called once the content has all arrived, before the file is kept: what an upload learns only
   * after its content (a multipart form's fields sent after the file part). Answers the purpose
   * and expiry to keep instead of those above, or throws to keep nothing.
   */
  settle?: (content: { bytes: number; createdAt: number }) => Promise<Pick<NewFile, 'purpose' | 'expiresAt'>>;
}

export interface FileListQuery {
  purpose?: FilePurpose;
  /** A file id: the page starts after it, in `order`. */
  after?: string;
  limit: number;
  order: 'asc' | 'desc';
}

export interface FileStore {
  put(file: NewFile): Promise<StoredFile>;
  get(keyId: string, id: string): Promise<StoredFile | undefined>;
  list(keyId: string, query: FileListQuery): Promise<{ data: StoredFile[]; hasMore: boolean }>;
  /** The content in chunks, or undefined where `get` would be. */
  open(keyId: string, id: string): Promise<AsyncIterable<Uint8Array> | undefined>;
  /** True when a file was deleted. */
  delete(keyId: string, id: string): Promise<boolean>;
  /** Removes expired files and uploads abandoned midway, content included; answers how many. */
  sweep?(): Promise<number>;
}
