import { PNG } from 'pngjs';

/**
 * A real, decodable RGB PNG of the given size: a diagonal colour gradient, so a viewer shows
 * something and the bytes compress well. Encoding 4096x4096 takes about 0.2 s; callers cache.
 */
export function renderPng(width: number, height: number): Buffer {
  const png = new PNG({ width, height, colorType: 2, inputColorType: 2, inputHasAlpha: false });
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    const red = Math.floor((255 * y) / height);
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      data[i] = red;
      data[i + 1] = Math.floor((255 * x) / width);
      data[i + 2] = 160;
    }
  }
  png.data = data;
  return PNG.sync.write(png, { colorType: 2, inputColorType: 2, inputHasAlpha: false });
}

/** Width and height for a `<w>:<h>` ratio with the given long side (at least 1 px each). */
export function sizeForRatio(ratio: string, longSide: number): { width: number; height: number } | undefined {
  const match = /^(\d+):(\d+)$/.exec(ratio);
  if (!match) return undefined;
  const w = Number(match[1]);
  const h = Number(match[2]);
  if (w <= 0 || h <= 0) return undefined;
  return w >= h
    ? { width: longSide, height: Math.max(1, Math.round((longSide * h) / w)) }
    : { width: Math.max(1, Math.round((longSide * w) / h)), height: longSide };
}
