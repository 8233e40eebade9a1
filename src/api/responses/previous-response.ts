import { GatewayError } from '../../errors.js';
import type { Channel } from '../../gateway/channel.js';
import type { GatewayDeps } from '../../gateway-deps.js';

/** One-channel route lists, one per channel object, so a follow-up builds no route table of its own. */
const alone = new WeakMap<Channel, readonly Channel[]>();

/**
 * The channels a Responses follow-up may go to (issue 33): `previous_response_id` names a response
 * only the account that stored it knows, so the follow-up goes to that channel, whichever instance
 * it reaches. A response this gateway does not know is a clear 400 when the model has several
 * channels (a guess would fail upstream as "not found" most of the time); with one channel, the
 * upstream decides, as before.
 */
export async function channelsForFollowUp(gateway: GatewayDeps, previousId: string, model: string): Promise<readonly Channel[] | undefined> {
  const home = await gateway.responseHomes?.channelOf(previousId);
  if (home === undefined) {
    let serving = 0;
    for (const channel of gateway.channels) if (Object.hasOwn(channel.models, model)) serving++;
    if (serving <= 1) return undefined;
    throw new GatewayError(
      'GW_REQ_INVALID_PARAM',
      `Previous response '${previousId}' is not known to this gateway: it was not made through it, was made with store: false, or has expired. Send the whole conversation in 'input'.`,
      { param: 'previous_response_id' },
    );
  }
  const channel = gateway.channels.find((candidate) => candidate.name === home);
  if (!channel || !Object.hasOwn(channel.models, model)) {
    throw new GatewayError(
      'GW_REQ_INVALID_PARAM',
      `Previous response '${previousId}' was stored by an upstream that no longer serves model '${model}'. Send the whole conversation in 'input'.`,
      { param: 'previous_response_id' },
    );
  }
  let list = alone.get(channel);
  if (!list) alone.set(channel, (list = [channel]));
  return list;
}

/** Remembers the channel that stored a response, for its follow-ups (nothing when the client asked not to store it). */
export function answerRememberer(gateway: GatewayDeps, notStored: boolean): ((channel: Channel, answerId: string) => Promise<void>) | undefined {
  const homes = gateway.responseHomes;
  if (!homes || notStored) return undefined;
  return (channel, answerId) => homes.remember(answerId, channel.name);
}
