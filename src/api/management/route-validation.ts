import { toFastifyValidator, type Validator } from '../../validation/compile.js';

/** The route's body (or query) validator; path parameters are plain strings. */
export const validated = (validate: Validator<unknown>) => ({ httpPart }: { httpPart?: string }) =>
  httpPart === 'body' || httpPart === 'querystring' ? toFastifyValidator(validate) : (value: unknown) => ({ value });
