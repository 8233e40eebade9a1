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
