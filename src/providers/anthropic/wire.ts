/** Anthropic's wire types are the Messages protocol's own (src/protocols/anthropic-messages/). */
export * from '../../protocols/anthropic-messages/types.js';
