import type { GatewayError } from '../../errors.js';
import type { OutEvent } from '../../gateway/sse/write.js';
import { renderError } from '../envelopes.js';

/**
 * A chat or messages stream that fails after its first byte ends with one `data:` event holding
 * the family's error body, and no `[DONE]`: a client must not mistake a cut stream for a finished one.
 */
export const renderChatStreamError = (error: GatewayError): OutEvent[] => [{ data: renderError('chat', error) }];
