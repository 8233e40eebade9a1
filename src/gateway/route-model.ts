import { GatewayError } from '../errors.js';
import type { Channel } from './channel.js';

/**
 * The channels that serve a model, in the order to try them: lower `priority` first; inside a
 * priority group, a weighted random order (so load spreads by weight).
 */
export function routeModel(channels: readonly Channel[], model: string, random: () => number = Math.random): Channel[] {
  const candidates = channels.filter((c) => Object.hasOwn(c.models, model));
  if (candidates.length <= 1) return candidates;
  const groups = new Map<number, Channel[]>();
  for (const channel of candidates) {
    const group = groups.get(channel.priority);
    if (group) group.push(channel);
    else groups.set(channel.priority, [channel]);
  }
  const ordered: Channel[] = [];
  for (const priority of [...groups.keys()].sort((a, b) => a - b)) ordered.push(...weightedOrder(groups.get(priority)!, random));
  return ordered;
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

/**
 * The model's channels, in route order, whose vendor offers what the caller needs (a translator
 * pair, a video adapter…), or an error that says why there are none.
 */
export function routeModelOffering<T>(
  channels: readonly Channel[],
  model: string,
  offer: (channel: Channel) => T | undefined,
): Array<{ channel: Channel; offer: T }> {
  const routed = routeModel(channels, model);
  const usable = routed.flatMap((channel) => {
    const offered = offer(channel);
    return offered === undefined ? [] : [{ channel, offer: offered }];
  });
  if (usable.length === 0) {
    throw routed.length === 0
      ? new GatewayError('GW_NO_CHANNEL', `No upstream channel is configured for model '${model}'`)
      : new GatewayError('GW_MODEL_UNSUPPORTED', `Model '${model}' is not available on this endpoint with the configured upstreams`);
  }
  return usable;
}
