import type { FamilyErrors, KeyLocation } from '../../contracts/family-errors.js';
import type { GatewayError } from '../../errors.js';

/** The spec's /v1beta envelope ("Error body shapes"): Google's `{error: {code, message, status}}`. */
export const renderGoogleError = (error: GatewayError): unknown => ({ error: { code: error.status, message: error.message, status: error.kind.grpcStatus } });

/** Google's SDKs send the key as `x-goog-api-key`, REST users as `?key=`. */
export const GOOGLE_KEY: KeyLocation = { query: 'key', header: 'x-goog-api-key', hint: "'key' query parameter or the x-goog-api-key header" };

export const generateContentErrors: FamilyErrors = { schemaName: 'GoogleError', render: renderGoogleError, key: GOOGLE_KEY };
