import type { FamilyErrors } from '../../contracts/family-errors.js';
import type { GatewayError } from '../../errors.js';

/** The spec's general envelope ("Error body shapes"): responses, images, videos, assets, models and management. */
export const renderGeneralError = (error: GatewayError): unknown => ({ error: { message: error.message, type: error.kind.type, code: error.kind.publicCode } });

export const generalErrors: FamilyErrors = { schemaName: 'GeneralError', render: renderGeneralError };
