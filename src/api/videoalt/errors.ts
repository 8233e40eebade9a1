import { randomUUID } from 'node:crypto';
import type { FamilyErrors } from '../../contracts/family-errors.js';
import type { GatewayError } from '../../errors.js';

/** Kling's numeric business codes by HTTP status (protocols/kling.md, "Error codes"). */
const KLING_CODE_BY_STATUS: Record<number, number> = {
  400: 1200, 401: 1000, 403: 1103, 404: 1203, 413: 1200, 429: 1302, 500: 5000, 502: 5000, 503: 5001, 504: 5002,
};

/** The Kling-native envelope the /videoalt routes speak. */
export const renderKlingError = (error: GatewayError): unknown => ({ code: error.vendorCode ?? KLING_CODE_BY_STATUS[error.status] ?? 5000, message: error.message, request_id: randomUUID() });

export const videoaltErrors: FamilyErrors = { schemaName: 'KlingError', render: renderKlingError };
