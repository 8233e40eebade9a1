import type { ChannelHealth } from './channel-health.js';
import type { CircuitBreakers } from './circuit-breaker.js';

interface Trackers {
  circuits: CircuitBreakers;
  channelHealth: ChannelHealth;
}

/**
 * The end of one upstream attempt, told to the channel's circuit (routing) and its health figures
 * (the console) at once, so the two always agree on what counted: an answer, even the client's own
 * 4xx, is a success; a failure the channel is to blame for counts against it.
 */
export function attemptAnswered({ circuits, channelHealth }: Trackers, channel: string, sentAt: number): void {
  circuits.onSuccess(channel);
  channelHealth.succeeded(channel, Date.now() - sentAt);
}

export function attemptFailed({ circuits, channelHealth }: Trackers, channel: string, sentAt: number, status: number | undefined, message: string, vendorMessage?: string): void {
  circuits.onFailure(channel);
  channelHealth.failed(channel, Date.now() - sentAt, status, message, vendorMessage);
}
