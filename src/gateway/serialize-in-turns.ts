/**
 * JSON for a large upstream body without holding the event loop (issue 13, the event-loop
 * watchdog): JSON.stringify of one 30 MB string takes 130 ms in one go on a slow core, and every
 * other tenant waits. Strings past SLICE characters are taken out, the rest is serialised at once
 * (fast: what is left is small), and each long string is escaped a slice per turn, then put back.
 * The caller's object is restored before anything yields, so nothing else ever sees it changed.
 */
const SLICE = 512 * 1024;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

interface TakenOut {
  holder: Record<string, unknown> | unknown[];
  key: string | number;
  text: string;
  marker: string;
}

export async function serializeInTurns(value: unknown): Promise<string> {
  const nonce = Math.random().toString(36).slice(2);
  const taken: TakenOut[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    const holder = node as Record<string, unknown>;
    for (const key of Array.isArray(node) ? node.keys() : Object.keys(node)) {
      const child = holder[key as string];
      if (typeof child === 'string' && child.length > SLICE) {
        const marker = `\u0001gw-${nonce}-${taken.length}\u0001`;
        taken.push({ holder, key, text: child, marker });
        holder[key as string] = marker;
      } else if (child !== null && typeof child === 'object') stack.push(child);
    }
  }
  let json: string;
  try {
    json = JSON.stringify(value);
  } finally {
    for (const { holder, key, text } of taken) (holder as Record<string, unknown>)[key as string] = text;
  }
  for (const { text, marker } of taken) {
    await nextTurn();
    const escaped = await escapeInSlices(text);
    json = json.split(JSON.stringify(marker)).join(escaped);
  }
  return json;
}

/** The JSON string literal of `text`, escaped one slice per turn; a slice never splits a surrogate pair. */
async function escapeInSlices(text: string): Promise<string> {
  let out = '"';
  for (let at = 0; at < text.length; ) {
    let end = Math.min(at + SLICE, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
    out += JSON.stringify(text.slice(at, end)).slice(1, -1);
    at = end;
    if (at < text.length) await nextTurn();
  }
  return out + '"';
}
