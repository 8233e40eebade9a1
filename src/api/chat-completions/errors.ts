import type { FamilyErrors } from '../../contracts/family-errors.js';
import type { GatewayError } from '../../errors.js';

/** The spec's chat envelope ("Error body shapes"): /v1/chat/completions and chat-shaped /v1/messages. */
export const renderChatError = (error: GatewayError): unknown => ({ error: { code: error.kind.publicCode, message: error.message } });

export const chatErrors: FamilyErrors = { schemaName: 'ChatError', render: renderChatError };
