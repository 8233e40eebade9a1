import type { GatewayError } from '../../errors.js';
import type { OutEvent } from '../../gateway/sse/write.js';
import { renderError } from '../envelopes.js';

/**
 * A native stream that fails after its first byte ends with one `data:` event holding the
 * google error body `{error:{code,message,status}}`, the shape Gemini itself uses mid-stream.
 */
export const renderGoogleStreamError = (error: GatewayError): OutEvent[] => [{ data: renderError('google', error) }];
