import { GatewayError } from '../../errors.js';
import type { OpenAIResponsesWebSearchTool } from '../../protocols/openai-responses/input-items.js';
import type { ChatWebSearch } from '../openai-compatible/responses-tools-via-chat.js';

/**
 * A Responses `web_search` tool as GLM's own chat tool `{type: "web_search", web_search: {…}}`
 * (docs.bigmodel.cn chat completions, `tools`; new-api maps hosted search the same way):
 * `enable`, the documented default engine `search_std`, `search_result` so the answer carries
 * what was found. One allowed domain becomes `search_domain_filter` (GLM takes one), a large
 * `search_context_size` becomes `content_size: "high"`. GLM has no user location and no
 * cached-only mode: a `user_location` is a 400; `external_web_access` (Codex sends false for its
 * cached search) has no counterpart, GLM searches live (docs/decisions.md).
 */
export function toZhipuWebSearch(tool: OpenAIResponsesWebSearchTool, param: string): ChatWebSearch {
  const search: Record<string, unknown> = { enable: true, search_engine: 'search_std', search_result: true };
  const domains = tool.filters?.allowed_domains ?? [];
  if (domains.length > 1) {
    throw new GatewayError('GW_REQ_INVALID_PARAM', `'${param}.filters.allowed_domains': this model's web search takes at most one domain`, { param: `${param}.filters.allowed_domains` });
  }
  if (domains.length === 1) search.search_domain_filter = domains[0];
  if (tool.user_location) {
    throw new GatewayError('GW_REQ_INVALID_PARAM', `'${param}.user_location' is not supported by this model's web search`, { param: `${param}.user_location` });
  }
  if (tool.search_context_size === 'high') search.content_size = 'high';
  return { tools: [{ type: 'web_search', web_search: search }] };
}
