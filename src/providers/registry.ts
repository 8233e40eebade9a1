import type { ProviderModule, VendorId } from './types.js';
import { openai } from './openai/index.js';
import { volcengineArk } from './volcengine-ark/index.js';
import { zhipu } from './zhipu/index.js';
import { gemini } from './gemini/index.js';
import { anthropic } from './anthropic/index.js';
import { alibabaDashScope } from './alibaba-dashscope/index.js';
import { kling } from './kling/index.js';

/** The only list of vendors. Adding a vendor is one folder and one line here. */
export const PROVIDERS: readonly ProviderModule[] = [openai, volcengineArk, zhipu, gemini, anthropic, alibabaDashScope, kling];

const BY_VENDOR = new Map<VendorId, ProviderModule>(PROVIDERS.map((p) => [p.vendor, p]));

export function providerFor(vendor: VendorId): ProviderModule {
  const provider = BY_VENDOR.get(vendor);
  if (!provider) throw new Error(`vendor '${vendor}' has no provider module`);
  return provider;
}
