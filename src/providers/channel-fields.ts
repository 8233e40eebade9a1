/**
 * The channel fields a vendor takes, declared in its folder (index.ts) so the config check, the
 * admin API's vendor list (GET /admin/api/vendors) and the console's channel form need no
 * per-vendor code.
 */

/** The channel fields a vendor's form may ask for (config file and admin API names). */
export const CHANNEL_CREDENTIAL_NAMES = ['api_key', 'access_key', 'secret_key', 'region', 'aws_access_key_id', 'aws_secret_access_key', 'aws_session_token', 'api_version', 'tenant_id', 'client_id', 'client_secret', 'authority_host', 'project', 'service_account'] as const;
export type ChannelCredentialName = (typeof CHANNEL_CREDENTIAL_NAMES)[number];

/** A credential or signing field of a channel; the names are the channel's own (config file, admin API). */
export interface ChannelCredentialField {
  readonly name: ChannelCredentialName;
  /** The form's label for it. */
  readonly label: string;
  /** A channel with a real `base_url` needs it (the simulator takes none). */
  readonly required: boolean;
  /** Write-only: stored encrypted, never shown again (a region is not a secret). */
  readonly secret: boolean;
  /** What the form hints in the empty field: a default, or what the field is for. */
  readonly hint?: string;
  /** A paste box rather than one line (a JSON key file). */
  readonly multiline?: boolean;
}

export interface ChannelFields {
  /** In the order the form shows them. */
  readonly credentials: readonly ChannelCredentialField[];
  /** True where the vendor has no address of its own to default to (each deployment has its own host). */
  readonly baseUrlRequired: boolean;
}

/** The one field of vendors that authenticate with a bearer-style API key. */
export const API_KEY_ONLY: ChannelFields = {
  credentials: [{ name: 'api_key', label: 'API key', required: true, secret: true }],
  baseUrlRequired: false,
};
