// The channel form's text fields: models and headers typed one per line, numbers typed as text.

/** `public = upstream` per line, as typed; blank lines and spaces around `=` are fine. */
export function parseModels(text: string): { models: Record<string, string>; problem?: string } {
  const models: Record<string, string> = {};
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (!line) continue;
    const [left, ...rest] = line.split('=');
    const publicId = left!.trim();
    const upstream = rest.join('=').trim() || publicId;
    if (!publicId) return { models, problem: `Models, line ${index + 1}: write “public-id = upstream-name”.` };
    models[publicId] = upstream;
  }
  return { models };
}

/** `Name: value` per line. */
export function parseHeaders(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const at = raw.indexOf(':');
    if (at > 0) headers[raw.slice(0, at).trim()] = raw.slice(at + 1).trim();
  }
  return headers;
}

export const modelsText = (map: Record<string, string>) => Object.entries(map).map(([id, upstream]) => `${id} = ${upstream}`).join('\n');
export const num = (text: string): number | undefined => (text.trim() === '' ? undefined : Number(text));
