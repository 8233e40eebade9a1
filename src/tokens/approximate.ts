/**
 * About four characters a token for Latin-script text and one a token for CJK, o200k's averages,
 * read from the UTF-8 length (native) rather than walking the string: each 3-byte character
 * (most CJK) adds two bytes over its one UTF-16 unit. Errs high on other scripts. Linear in the
 * text and allocation-free: the estimate for the hot path and for texts too long to count exactly.
 */
export function approximateTokens(text: string): number {
  const wide = (Buffer.byteLength(text, 'utf8') - text.length) / 2;
  return Math.ceil((text.length - wide) / 4 + wide);
}
