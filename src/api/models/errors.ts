import { BEARER_KEY_HINT, type FamilyErrors } from '../../contracts/family-errors.js';
import { GOOGLE_KEY, renderGoogleError } from '../generate-content/errors.js';
import { isGoogleStyleRequest } from '../generate-content/google-style.js';
import { renderGeneralError } from '../general/errors.js';

/**
 * `/v1/models` answers OpenAI's and Google's clients (google-style.ts): Google-style calls get
 * Google's envelope, and their key is read where Google's SDKs send it; a missing key is
 * explained the OpenAI way, the shape this path documents.
 */
export const modelsErrors: FamilyErrors = {
  schemaName: 'GeneralError',
  render: (error, request) => (isGoogleStyleRequest(request.url, request.headers) ? renderGoogleError(error) : renderGeneralError(error)),
  key: { ...GOOGLE_KEY, hint: BEARER_KEY_HINT },
};
