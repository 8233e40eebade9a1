import type { Channel } from '../../lib/types';

/** One vendor of GET /admin/api/vendors: what a channel of it takes, declared in its provider folder. */
export interface VendorInfo {
  vendor: string;
  default_base_url: string;
  base_url_required: boolean;
  credentials: CredentialField[];
  default_models: Record<string, string>;
}

export interface CredentialField {
  name: string;
  /** text: one line; url; json: a key file; pem: a certificate or private key. */
  type?: 'text' | 'url' | 'json' | 'pem';
  label: string;
  required: boolean;
  secret: boolean;
  hint: string | null;
  /** A paste box (a JSON key file, a PEM block) rather than one line. */
  multiline?: boolean;
  /** Shown in the channel row. */
  row?: boolean;
}

/** What the channel holds for a field now: a secret's masked tail, or a plain field's value. */
function currentValue(channel: Channel, field: CredentialField): string | null | undefined {
  if (field.name === 'region') return channel.region;
  if (!field.secret && channel.settings?.[field.name] !== undefined) return channel.settings[field.name];
  return channel.credentials[field.name];
}

/** The value a plain (non-secret) field starts with when editing; secrets always start empty (write-only). */
export function initialCredentialValues(channel: Channel | undefined): Record<string, string> {
  return { ...channel?.settings, ...(channel?.region ? { region: channel.region } : {}) };
}

/**
 * The credential inputs of the chosen vendor, two to a row, from its declared fields: no input
 * names a vendor. Secrets are write-only: an edit shows their last four characters and keeps them
 * unless a new value is typed.
 */
export function CredentialInputs({ fields, values, onChange, channel }: {
  fields: readonly CredentialField[];
  values: Record<string, string>;
  onChange: (name: string, value: string) => void;
  channel: Channel | undefined;
}) {
  const placeholder = (field: CredentialField): string => {
    if (channel && field.secret) {
      const masked = currentValue(channel, field);
      return masked ? `unchanged (${masked})` : 'none';
    }
    return field.hint ?? (field.secret ? 'the vendor credential' : '');
  };
  return (
    <div className="grid-2">
      {fields.map((field) => (
        <label key={field.name}>
          {field.label}
          {field.multiline ? (
            <textarea
              rows={4}
              autoComplete="off"
              spellCheck={false}
              value={values[field.name] ?? ''}
              onChange={(e) => onChange(field.name, e.target.value)}
              placeholder={placeholder(field)}
            />
          ) : (
            <input
              type={field.secret ? 'password' : 'text'}
              autoComplete="off"
              value={values[field.name] ?? ''}
              onChange={(e) => onChange(field.name, e.target.value)}
              placeholder={placeholder(field)}
            />
          )}
          {field.secret && <span className="hint">Encrypted at rest, never shown again.</span>}
        </label>
      ))}
    </div>
  );
}
