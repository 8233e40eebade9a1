/**
 * Chat completions know only flat function names, while a Responses `namespace` tool groups
 * functions whose calls carry `{namespace, name}`. Through a chat upstream a namespaced function
 * is declared as `<namespace>--<name>` (`--` is legal in the tool names of OpenAI, Anthropic and
 * Gemini), and an upstream call of such a name comes back as `{namespace, name}`.
 *
 * The answer's translation does not see the request, so the encoding must be reversible on its
 * own: `--` is therefore reserved. A top-level tool or a namespace whose name holds it is refused
 * (chat-tool-names check), so every `--` in an upstream call's name is a namespace boundary.
 */
export const NAMESPACE_SEPARATOR = '--';

export const encodeNamespacedName = (namespace: string, name: string): string => `${namespace}${NAMESPACE_SEPARATOR}${name}`;

/** `{name}` for a plain function; `{namespace, name}` when the name holds the separator. */
export function decodeNamespacedName(chatName: string): { name: string; namespace?: string } {
  const at = chatName.indexOf(NAMESPACE_SEPARATOR);
  if (at <= 0) return { name: chatName };
  return { namespace: chatName.slice(0, at), name: chatName.slice(at + NAMESPACE_SEPARATOR.length) };
}

export const holdsSeparator = (name: string): boolean => name.includes(NAMESPACE_SEPARATOR);
