import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { CHANNEL_FIELDS, PROVIDERS } from '../../providers/registry.js';
import { isMultiline } from '../../providers/channel-fields.js';

const CREDENTIAL_NAMES = [...CHANNEL_FIELDS.keys()];
const FIELD_TYPES = ['text', 'url', 'json', 'pem'] as const;

const VendorView = Type.Object({
  vendor: Type.String({ description: "A channel's `vendor`" }),
  default_base_url: Type.String({ description: "The real service's address; a channel without `base_url` uses the built-in simulator" }),
  base_url_required: Type.Boolean({ description: 'A channel of this vendor must name its `base_url`' }),
  credentials: Type.Array(
    Type.Object({
      name: Type.Unsafe<string>({ type: 'string', enum: CREDENTIAL_NAMES, description: "The channel's field" }),
      type: Type.Unsafe<(typeof FIELD_TYPES)[number]>({ type: 'string', enum: [...FIELD_TYPES], description: 'text: one line; url: an http(s) address; json: a JSON document (a key file); pem: a PEM block. json and pem are given whole, never as a path' }),
      label: Type.String(),
      required: Type.Boolean({ description: 'Needed by a channel with a real `base_url`' }),
      secret: Type.Boolean({ description: 'Write-only: stored encrypted, shown masked' }),
      hint: Type.Union([Type.String(), Type.Null()]),
      multiline: Type.Boolean({ description: 'A paste box (a JSON key file, a PEM block) rather than one line' }),
      row: Type.Boolean({ description: "Shown in the console's channel row (masked when secret)" }),
    }),
    { description: 'The credential and signing fields a channel of this vendor takes, in form order' },
  ),
  default_models: Type.Record(Type.String(), Type.String(), { description: 'Public model id → upstream model name its simulator channel serves by default' }),
});

const VendorList = Type.Object({ object: Type.Literal('list'), data: Type.Array(VendorView) });

/**
 * The vendors a channel can name (issue 28), from the provider registry, each with the fields its
 * channels take: the console's channel form is built from this answer, so adding a vendor (its
 * folder and one registry line) needs no console change.
 */
export async function adminVendorRoutes(app: FastifyInstance, { opts }: { opts: (summary: string, schema?: Record<string, unknown>) => object }): Promise<void> {
  const data = PROVIDERS.map((provider) => ({
    vendor: provider.vendor,
    default_base_url: provider.defaultBaseUrl,
    base_url_required: provider.channelFields.baseUrlRequired,
    credentials: provider.channelFields.credentials.map((field) => ({
      name: field.name, type: field.type, label: field.label, required: field.required, secret: field.secret,
      hint: field.hint ?? null, multiline: isMultiline(field), row: field.row === true,
    })),
    default_models: provider.defaultModels,
  }));
  app.get('/admin/api/vendors', opts('The vendors a channel can name, with the credential fields each takes', { response: { 200: VendorList } }), async () => ({
    object: 'list' as const,
    data,
  }));
}
