/**
 * The channel fields a vendor takes, declared in its folder (index.ts): the one declaration the
 * config schema, the admin API's bodies and views, sealing at rest, masking, the redactor's
 * secret values, GET /admin/api/vendors and the console's channel form and rows all read
 * (issue 43). A vendor with a new kind of credential declares it here and nowhere else.
 */

/**
 * What a field's value is: one line of `text`; an http(s) `url`; a `json` document (a key file);
 * a `pem` block (a certificate or private key). `json` and `pem` are paste boxes in the console
 * and must be given whole through the admin API (issue 44: never a path the gateway would read).
 */
export type ChannelFieldType = 'text' | 'url' | 'json' | 'pem';

/** A credential or account field of a channel; the name is the channel's own (config file, admin API). */
export interface ChannelField {
  /** snake_case, as in the configuration file and the admin API. */
  readonly name: string;
  readonly type: ChannelFieldType;
  /** The form's label for it. */
  readonly label: string;
  /** A channel with a real `base_url` needs it (the simulator takes none). */
  readonly required: boolean;
  /** Write-only: sealed at rest, masked in every view, removed from upstream text. */
  readonly secret: boolean;
  /** Shown in the console's channel row (masked when secret). */
  readonly row?: boolean;
  /** What the form hints in the empty field: a default, or what the field is for. */
  readonly hint?: string;
  /** Constraints of a `text` value, checked at config load and by the admin API. */
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  /** The configuration file (never the admin API) may give a path to a file holding the value. */
  readonly pathInFile?: boolean;
  /** What a simulator channel of the vendor is given for it (the built-in fakes check it). */
  readonly simulatorValue?: string;
}

export interface ChannelFields {
  /** In the order the form shows them. */
  readonly credentials: readonly ChannelField[];
  /** True where the vendor has no address of its own to default to (each deployment has its own host). */
  readonly baseUrlRequired: boolean;
}

/** The bearer-style API key most vendors take. */
export const API_KEY: ChannelField = { name: 'api_key', type: 'text', label: 'API key', required: true, secret: true, row: true, simulatorValue: 'simulator-key' };

/** An access key pair (request signing); the simulators check the pair they are given. */
export const ACCESS_KEY: ChannelField = { name: 'access_key', type: 'text', label: 'Access key', required: true, secret: true, simulatorValue: 'simulator-ak' };
export const SECRET_KEY: ChannelField = { name: 'secret_key', type: 'text', label: 'Secret key', required: true, secret: true, simulatorValue: 'simulator-sk' };

/** A cloud region (signing or routing); not a secret. */
export const REGION: ChannelField = { name: 'region', type: 'text', label: 'Region', required: false, secret: false, minLength: 1, maxLength: 64 };

/** The one field of vendors that authenticate with a bearer-style API key. */
export const API_KEY_ONLY: ChannelFields = { credentials: [API_KEY], baseUrlRequired: false };

/** Names a channel has for its own settings: no vendor may declare a field under one. */
const CHANNEL_SETTING_NAMES = new Set([
  'name', 'vendor', 'base_url', 'models', 'responses', 'batch', 'prompt_cache', 'max_inputs_per_call', 'enabled', 'priority', 'weight',
  'max_retries', 'auto_disable_after_auth_failures', 'timeouts', 'headers', 'simulator', 'prices',
]);

const FIELD_NAME = /^[a-z][a-z0-9_]{0,62}$/;

/** What a field's value must be: two vendors declaring one name must agree on it. */
function shapeOf(field: ChannelField): string {
  return JSON.stringify([field.type, field.secret, field.pattern, field.minLength, field.maxLength, field.pathInFile === true]);
}

/**
 * Every field the vendors declare, by name (the config file and admin API take them on any
 * channel). Throws at start-up where a name is malformed, taken by a channel setting, or declared
 * with different shapes by two vendors.
 */
export function collectChannelFields(vendors: readonly { vendor: string; channelFields: ChannelFields }[]): ReadonlyMap<string, ChannelField> {
  const fields = new Map<string, ChannelField>();
  const declaredBy = new Map<string, string>();
  for (const { vendor, channelFields } of vendors) {
    for (const field of channelFields.credentials) {
      if (!FIELD_NAME.test(field.name) || CHANNEL_SETTING_NAMES.has(field.name)) throw new Error(`vendor '${vendor}' declares the channel field '${field.name}', which is not a free snake_case name`);
      const known = fields.get(field.name);
      if (known && shapeOf(known) !== shapeOf(field)) throw new Error(`vendor '${vendor}' declares the channel field '${field.name}' unlike vendor '${declaredBy.get(field.name)}' (type, secret and constraints must agree)`);
      if (!known) {
        fields.set(field.name, field);
        declaredBy.set(field.name, vendor);
      }
    }
  }
  return fields;
}

/** Paste boxes rather than one line. */
export function isMultiline(field: ChannelField): boolean {
  return field.type === 'json' || field.type === 'pem';
}
