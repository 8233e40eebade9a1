import { GatewayError } from '../errors.js';
import type { Channel } from './channel.js';

/**
 * The channels that serve a model, in the order to try them: lower `priority` first; inside a
 * priority group, a weighted random order (so load spreads by weight).
 */
export function routeModel(channels: readonly Channel[], model: string, random: () => number = Math.random): Channel[] {
  const groups = routeTableOf(channels).get(model);
  if (!groups) return [];
  if (groups.length === 1 && groups[0]!.length === 1) return [groups[0]![0]!];
  const ordered: Channel[] = [];
  for (const group of groups) ordered.push(...(group.length === 1 ? group : weightedOrder(group, random)));
  return ordered;
}

/** Whether any of the channels serves the model (under any family). */
export const isRouted = (channels: readonly Channel[], model: string): boolean => routeTableOf(channels).has(model);

/** The channels an operator (or the file) disabled, beside the routable list they were left out of. */
const disabledBeside = new WeakMap<readonly Channel[], readonly Channel[]>();

/**
 * The enabled channels, as the list routing reads; the disabled ones are remembered beside it, so
 * a model whose channels are all disabled is refused saying so (issue 22), not as unconfigured.
 */
export function routableChannels(all: readonly Channel[], isEnabled: (name: string) => boolean): readonly Channel[] {
  const routable = all.filter((channel) => isEnabled(channel.name));
  disabledBeside.set(
    routable,
    all.filter((channel) => !isEnabled(channel.name)),
  );
  return routable;
}

/** model → its channels in priority groups (ascending), built once per channel list. */
type RouteTable = Map<string, Channel[][]>;
const routeTables = new WeakMap<readonly Channel[], RouteTable>();

function routeTableOf(channels: readonly Channel[]): RouteTable {
  let table = routeTables.get(channels);
  if (table) return table;
  table = new Map();
  const models = new Set(channels.flatMap((c) => Object.keys(c.models)));
  for (const model of models) {
    const byPriority = new Map<number, Channel[]>();
    for (const channel of channels.filter((c) => Object.hasOwn(c.models, model))) {
      byPriority.set(channel.priority, [...(byPriority.get(channel.priority) ?? []), channel]);
    }
    table.set(model, [...byPriority.keys()].sort((a, b) => a - b).map((p) => byPriority.get(p)!));
  }
  routeTables.set(channels, table);
  return table;
}

function weightedOrder(group: Channel[], random: () => number): Channel[] {
  const remaining = [...group];
  const ordered: Channel[] = [];
  while (remaining.length > 0) {
    const total = remaining.reduce((sum, c) => sum + c.weight, 0);
    let pick = random() * total;
    let index = 0;
    while (index < remaining.length - 1 && pick >= remaining[index]!.weight) {
      pick -= remaining[index]!.weight;
      index++;
    }
    ordered.push(remaining.splice(index, 1)[0]!);
  }
  return ordered;
}

export interface Offering<T> {
  channel: Channel;
  offer: T;
}

/** Offerings of models whose route order is fixed (no weighted choice), by channel list, cache key and model. */
const fixedOfferings = new WeakMap<readonly Channel[], Map<string, readonly Offering<unknown>[]>>();

/**
 * The model's channels, in route order, whose vendor offers what the caller needs (a translator
 * pair, a video adapter…), or an error that says why there are none. With a `cacheKey` naming
 * what `offer` looks up, a route without a weighted choice is worked out once, not per request.
 */
export function routeModelOffering<T>(
  channels: readonly Channel[],
  model: string,
  offer: (channel: Channel) => T | undefined,
  cacheKey?: string,
): readonly Offering<T>[] {
  const fixed = cacheKey === undefined ? undefined : (fixedOfferings.get(channels) ?? fixedOfferings.set(channels, new Map()).get(channels)!);
  const cached = fixed?.get(cacheKey + '\u0000' + model);
  if (cached) return cached as readonly Offering<T>[];
  const routed = routeModel(channels, model);
  const usable: Offering<T>[] = [];
  for (const channel of routed) {
    const offered = offer(channel);
    if (offered !== undefined) usable.push({ channel, offer: offered });
  }
  if (usable.length === 0) {
    if (routed.length > 0) throw new GatewayError('GW_MODEL_UNSUPPORTED', `Model '${model}' is not available on this endpoint with the configured upstreams`);
    const disabled = disabledBeside.get(channels)?.some((channel) => Object.hasOwn(channel.models, model));
    throw new GatewayError('GW_NO_CHANNEL', disabled ? `Every upstream channel for model '${model}' is disabled` : `No upstream channel is configured for model '${model}'`);
  }
  if (fixed && routeTableOf(channels).get(model)!.every((group) => group.length === 1)) fixed.set(cacheKey + '\u0000' + model, usable);
  return usable;
}
