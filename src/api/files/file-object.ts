import type { StoredFile } from '../../files/file-store.js';

/** OpenAI's File object; `status` and `status_details` are deprecated there and fixed here. */
export function toFileObject(file: StoredFile) {
  return {
    id: file.id,
    object: 'file' as const,
    bytes: file.bytes,
    created_at: file.createdAt,
    expires_at: file.expiresAt,
    filename: file.filename,
    purpose: file.purpose,
    status: 'processed' as const,
    status_details: null,
  };
}

/** A page of files as OpenAI's list answers it (`CursorPage` in the SDKs reads `has_more`, then asks `after` the last id). */
export function toFileList(page: { data: StoredFile[]; hasMore: boolean }) {
  const data = page.data.map(toFileObject);
  return { object: 'list' as const, data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: page.hasMore };
}
