import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { PROVIDERS } from '../../providers/registry.js';
import { CHANNEL_CREDENTIAL_NAMES } from '../../providers/channel-fields.js';

const CREDENTIAL_NAMES = CHANNEL_CREDENTIAL_NAMES;

const VendorView = Type.Object({
  vendor: Type.String({ description: "A channel's `vendor`" }),
  default_base_url: Type.String({ description: "The real service's address; a channel without `base_url` uses the built-in simulator" }),
  base_url_required: Type.Boolean({ description: 'A channel of this vendor must name its `base_url`' }),
  credentials: Type.Array(
    Type.Object({
      name: Type.Unsafe<(typeof CREDENTIAL_NAMES)[number]>({ type: 'string', enum: [...CREDENTIAL_NAMES], description: "The channel's field" }),
      label: Type.String(),
      required: Type.Boolean({ description: 'Needed by a channel with a real `base_url`' }),
      secret: Type.Boolean({ description: 'Write-only: stored encrypted, shown masked' }),
      hint: Type.Union([Type.String(), Type.Null()]),
      multiline: Type.Boolean({ description: 'A paste box (a JSON key file) rather than one line' }),
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
    credentials: provider.channelFields.credentials.map((field) => ({ ...field, hint: field.hint ?? null, multiline: field.multiline ?? false })),
    default_models: provider.defaultModels,
  }));
  app.get('/admin/api/vendors', opts('The vendors a channel can name, with the credential fields each takes', { response: { 200: VendorList } }), async () => ({
    object: 'list' as const,
    data,
  }));
}
