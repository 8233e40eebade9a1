import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ChannelConfig } from '../../config/schema.js';
import { doubledSegment } from '../../config/load.js';
import { GatewayError } from '../../errors.js';
import type { Channel } from '../../gateway/channel.js';
import type { ChannelDefinition } from '../../gateway/channel-store.js';
import { buildUpstreamGuard, refusedUrl } from '../../gateway/upstream-guard.js';
import { channelUpstreamUrls } from '../../gateway/upstream-urls.js';
import { adminValueRefusal } from '../../gateway/channel-credentials.js';
import { validated } from '../management/route-validation.js';
import {
  ChannelIdParams, ChannelView, CreateChannelBody, PatchChannelBody, validateCreateChannel, validatePatchChannel, type CreateChannelBody as CreateBody,
} from './channel-schemas.js';

interface EditRouteTools {
  opts: (summary: string, schema?: Record<string, unknown>) => object;
  view: (channel: Channel) => unknown;
  found: (request: FastifyRequest) => Channel;
}

const SETTINGS = new Set(['enabled', 'weight', 'priority']);

/**
 * Channels added, changed and removed at runtime (issue 21), with the same fields as a channel
 * of the configuration file. Kept in the database (credentials sealed), applied on this instance
 * at once and on the others at their next look at the catalog's revision (seconds). A file
 * channel changed here keeps the file's fields it was not given; DELETE puts the file back.
 */
export async function adminChannelEditRoutes(app: FastifyInstance, { opts, view, found }: EditRouteTools): Promise<void> {
  const { channelControl, channelStore, catalog, catalogStore, catalogSync, config } = app.gateway;
  const fileChannels = new Map((config.file.channels ?? []).map((channel) => [channel.name, channel]));
  const upstreamGuard = buildUpstreamGuard(config);

  /** The rules the configuration file gets at start, as 400s naming the field. */
  const check = (channel: Partial<ChannelConfig>): void => {
    for (const id of Object.keys(channel.models ?? {})) {
      if (!catalog.find(id)) {
        throw new GatewayError('GW_REQ_INVALID_PARAM', `'models.${id}' is not a model the gateway knows: add it under Models first, or use a model of the built-in price sheet`, { param: `models.${id}` });
      }
    }
    for (const id of Object.keys(channel.prices ?? {})) {
      if (!Object.hasOwn(channel.models ?? {}, id)) throw new GatewayError('GW_REQ_INVALID_PARAM', `'prices.${id}' names a model the channel does not serve`, { param: `prices.${id}` });
    }
    const doubled = channel.vendor && channel.base_url ? doubledSegment({ vendor: channel.vendor, base_url: channel.base_url }) : undefined;
    if (doubled) throw new GatewayError('GW_REQ_INVALID_PARAM', `'base_url' ends with '${doubled}', which the gateway adds itself for ${channel.vendor}; leave it out`, { param: 'base_url' });
    const refused = refusedUrl(upstreamGuard, channelUpstreamUrls(channel));
    if (refused) throw new GatewayError('GW_REQ_INVALID_PARAM', refused.message, { param: refused.field });
  };
  /** Values given here, never paths (issue 44): checked on the fields given, not on the file's. */
  const checkGiven = (given: Record<string, unknown>): void => {
    for (const [field, value] of Object.entries(given)) {
      const refusal = adminValueRefusal(field, value);
      if (refusal) throw new GatewayError('GW_REQ_INVALID_PARAM', refusal, { param: field });
    }
  };
  /** Every instance picks the change up; this one at once. */
  const apply = async () => {
    await catalogStore.bump();
    await catalogSync.refresh();
  };

  app.post(
    '/admin/api/channels',
    {
      ...opts('Add a channel (the fields of a configuration-file channel); credentials are encrypted at rest and never returned', { body: CreateChannelBody, response: { 201: ChannelView } }),
      validatorCompiler: validated(validateCreateChannel),
    },
    async (request, reply) => {
      const body = request.body as CreateBody;
      if (channelControl.find(body.name) || channelStore.last.has(body.name)) throw new GatewayError('GW_CONFLICT', `A channel named '${body.name}' exists already; change it with PATCH /admin/api/channels/${body.name}`);
      checkGiven(body);
      check(body);
      await channelStore.put(body as ChannelDefinition);
      await apply();
      const created = channelControl.find(body.name);
      if (!created) throw new GatewayError('GW_INTERNAL', `Channel '${body.name}' was stored but could not be started`);
      return reply.code(201).send(view(created));
    },
  );

  app.patch(
    '/admin/api/channels/:id',
    {
      ...opts("Change a channel: its settings (enabled, weight, priority; null puts the definition's back) or any field of its definition (null removes it; for a file channel, puts the file's back)", {
        params: ChannelIdParams,
        body: PatchChannelBody,
        response: { 200: ChannelView },
      }),
      validatorCompiler: validated(validatePatchChannel),
    },
    async (request) => {
      const channel = found(request);
      const body = request.body as Record<string, unknown>;
      const settings = Object.fromEntries(Object.entries(body).filter(([field]) => SETTINGS.has(field)));
      const changes = Object.entries(body).filter(([field]) => !SETTINGS.has(field));
      if (changes.length > 0) {
        const file = fileChannels.get(channel.name);
        const stored = channelStore.last.get(channel.name);
        if (!file && !stored) throw new GatewayError('GW_REQ_INVALID_PARAM', `'${channel.name}' is a built-in simulator channel: only its settings can change; add a channel to serve its models elsewhere`);
        checkGiven(Object.fromEntries(changes));
        const next: Record<string, unknown> = { ...stored, name: channel.name };
        for (const [field, value] of changes) {
          if (value === null) delete next[field];
          else next[field] = value;
        }
        check({ ...file, ...next });
        const isOnlyName = Object.keys(next).length === 1;
        if (file && isOnlyName) await channelStore.remove(channel.name);
        else await channelStore.put(next as ChannelDefinition);
        await apply();
      }
      if (Object.keys(settings).length > 0) await channelControl.update(channel.name, settings);
      return view(channelControl.find(channel.name)!);
    },
  );

  app.delete(
    '/admin/api/channels/:id',
    opts('Remove a channel added at runtime, or the runtime changes of a file channel (the file applies again)', { params: ChannelIdParams, response: { 200: ChannelView, 204: { type: 'null' } } }),
    async (request, reply) => {
      // A channel whose credentials no key opens is in no list, but can be removed (issue 34: the key was lost).
      const sealed = channelStore.unopenable.find((candidate) => candidate.name === (request.params as { id: string }).id);
      if (sealed && !fileChannels.has(sealed.name)) {
        await channelStore.remove(sealed.name);
        await apply();
        return reply.code(204).send();
      }
      const channel = found(request);
      if (!channelStore.last.has(channel.name)) {
        throw new GatewayError(
          'GW_CONFLICT',
          fileChannels.has(channel.name)
            ? `Channel '${channel.name}' is defined in the configuration file: remove it there, or disable it here (PATCH enabled: false)`
            : `'${channel.name}' is a built-in simulator channel; it goes once another channel serves its models`,
        );
      }
      await channelStore.remove(channel.name);
      await apply();
      await channelControl.load();
      const left = channelControl.find(channel.name);
      return left ? view(left) : reply.code(204).send();
    },
  );
}
