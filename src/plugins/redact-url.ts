/**
 * A request URL fit for the logs: the value of every query parameter whose name is `key` once
 * percent-decoded (`?key=`, `?%6Bey=`, `?KEY=`), which is how the Google-style surface takes an
 * API key, is masked (issue 13: redaction used to match the literal name only).
 */
export function redactUrl(url: string): string {
  const query = url.indexOf('?');
  if (query < 0 || !/k|%/i.test(url.slice(query))) return url;
  const pairs = url.slice(query + 1).split('&');
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i]!;
    const equals = pair.indexOf('=');
    const name = equals < 0 ? pair : pair.slice(0, equals);
    if (isKeyName(name)) pairs[i] = `${name}=[REDACTED]`;
  }
  return `${url.slice(0, query + 1)}${pairs.join('&')}`;
}

function isKeyName(name: string): boolean {
  let decoded = name.replace(/\+/g, ' ');
  try {
    decoded = decodeURIComponent(decoded);
  } catch {
    // Malformed escapes: compare what is there.
  }
  return decoded.trim().toLowerCase() === 'key';
}
