import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Generated images handed out by URL live under `<dataDir>/media/images/`. */
const MEDIA_TYPES = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' } as const;
type ImageExtension = keyof typeof MEDIA_TYPES;

/**
 * A stored file's name: 32 random base64url characters (192 bits, unguessable) and a known
 * extension. Only names of this form are ever joined to the directory, so no path can escape it.
 */
const FILE_NAME = /^[A-Za-z0-9_-]{32}\.(png|jpg|webp)$/;

const imagesDir = (dataDir: string): string => join(dataDir, 'media', 'images');

/** The format by magic bytes; upstreams choose PNG or JPEG themselves. */
export function sniffImageExtension(bytes: Buffer): ImageExtension | undefined {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpg';
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  return undefined;
}

/** Writes the image and returns its file name. */
export async function storeImage(dataDir: string, bytes: Buffer, extension: ImageExtension): Promise<string> {
  const name = `${randomBytes(24).toString('base64url')}.${extension}`;
  await mkdir(imagesDir(dataDir), { recursive: true });
  await writeFile(join(imagesDir(dataDir), name), bytes, { flag: 'wx' });
  return name;
}

/** The stored image and its media type, or undefined for a name we never issued. */
export async function readImage(dataDir: string, name: string): Promise<{ bytes: Buffer; contentType: string } | undefined> {
  const match = FILE_NAME.exec(name);
  if (!match) return undefined;
  try {
    const bytes = await readFile(join(imagesDir(dataDir), name));
    return { bytes, contentType: MEDIA_TYPES[match[1] as ImageExtension] };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
