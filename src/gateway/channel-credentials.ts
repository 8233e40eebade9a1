import type { ChannelCredentials } from '../contracts/upstream-call.js';
import type { ChannelField, ChannelFields } from '../providers/channel-fields.js';
import { CHANNEL_FIELDS } from '../providers/registry.js';
import { maskSecret } from '../keys/secret-box.js';

/**
 * A channel's credential fields read through the vendors' declarations (issue 43): what the
 * provider is given, what is sealed at rest, masked in views and removed from upstream text. No
 * field is named here; a vendor's new field reaches all four from its folder.
 */

/** A channel definition's fields by name (the config file's, the admin API's). */
type FieldValues = { readonly [field: string]: unknown };

/** The declared fields of `vendorFields` that the definition sets, as the provider reads them. */
export function credentialsOf(definition: FieldValues, vendorFields: ChannelFields): ChannelCredentials {
  const credentials: Record<string, string> = {};
  for (const field of vendorFields.credentials) {
    const value = definition[field.name];
    if (typeof value === 'string') credentials[field.name] = value;
  }
  return credentials;
}

/** What a simulator channel of the vendor is given (the values its built-in fake checks). */
export function simulatorCredentialsOf(vendorFields: ChannelFields): ChannelCredentials {
  const credentials: Record<string, string> = {};
  for (const field of vendorFields.credentials) if (field.simulatorValue !== undefined) credentials[field.name] = field.simulatorValue;
  return credentials;
}

/** Whether a channel field is sealed at rest and never shown: any vendor's secret field, and the channel's own headers. */
export function isSealedField(name: string): boolean {
  return name === 'headers' || CHANNEL_FIELDS.get(name)?.secret === true;
}

/** The secret values a definition holds (any vendor's secret fields, header values): the redactor removes them from upstream text. */
export function secretValuesOf(definition: FieldValues): string[] {
  const values: string[] = [];
  for (const field of CHANNEL_FIELDS.values()) {
    const value = definition[field.name];
    if (field.secret && typeof value === 'string') values.push(value);
  }
  const headers = definition.headers;
  if (headers && typeof headers === 'object') for (const value of Object.values(headers)) if (typeof value === 'string') values.push(value);
  return values;
}

/** A secret field as views show it: a key's last four characters; only whether a document (a key file, a PEM block) is set. */
export function maskField(field: ChannelField, value: string | undefined): string | null {
  if (!value) return null;
  return field.type === 'json' || field.type === 'pem' ? '••••' : (maskSecret(value) ?? null);
}

/** Every declared secret field, masked, by name (null where unset): a view's `credentials`. */
export function maskedSecretsOf(credentials: ChannelCredentials): Record<string, string | null> {
  const masked: Record<string, string | null> = {};
  for (const field of CHANNEL_FIELDS.values()) if (field.secret) masked[field.name] = maskField(field, credentials[field.name]);
  return masked;
}

/** The declared non-secret fields the channel sets, by name (a view's `settings`, for editing). */
export function plainSettingsOf(credentials: ChannelCredentials): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const field of CHANNEL_FIELDS.values()) {
    const value = credentials[field.name];
    if (!field.secret && value !== undefined) settings[field.name] = value;
  }
  return settings;
}

/** The vendor's fields marked for the console's channel row that the channel sets, secrets masked. */
export function rowFieldsOf(credentials: ChannelCredentials, vendorFields: ChannelFields): Array<{ name: string; label: string; value: string }> {
  const shown: Array<{ name: string; label: string; value: string }> = [];
  for (const field of vendorFields.credentials) {
    const value = credentials[field.name];
    if (!field.row || !value) continue;
    shown.push({ name: field.name, label: field.label, value: field.secret ? (maskField(field, value) ?? '') : value });
  }
  return shown;
}

/**
 * Why a value given through the admin API (or the console) cannot be taken for a declared field,
 * or undefined. A key file or PEM block is given whole: the gateway never reads a path it is
 * handed there (issue 44: `/etc/shadow`, the data directory's `secret.key`); only the
 * configuration file, which the operator controls, may name one.
 */
export function adminValueRefusal(name: string, value: unknown): string | undefined {
  const field = CHANNEL_FIELDS.get(name);
  if (!field || typeof value !== 'string') return undefined;
  const given = value.trim();
  if (field.type === 'json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(given);
    } catch {
      parsed = undefined;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      return `'${name}' must be the JSON document itself (paste the file's content): the admin API never reads a file on the gateway host; a path may be given only in the configuration file`;
    }
  }
  if (field.type === 'pem' && !/^-----BEGIN [A-Z0-9 ]+-----/.test(given)) {
    return `'${name}' must be the PEM block itself (-----BEGIN …): the admin API never reads a file on the gateway host`;
  }
  return undefined;
}
