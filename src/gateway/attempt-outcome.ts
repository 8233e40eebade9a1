import type { ChannelHealth } from './channel-health.js';
import type { CircuitBreakers } from './circuit-breaker.js';
import type { AuthFailureGuard } from './auth-failure-guard.js';

interface Trackers {
  circuits: CircuitBreakers;
  channelHealth: ChannelHealth;
  authFailures?: AuthFailureGuard | undefined;
}

/**
 * The end of one upstream attempt, told to the channel's circuit (routing) and its health figures
 * (the console) at once, so the two always agree on what counted: an answer, even the client's own
 * 4xx, is a success; a failure the channel is to blame for counts against it.
 */
export function attemptAnswered({ circuits, channelHealth, authFailures }: Trackers, channel: string, sentAt: number): void {
  circuits.onSuccess(channel);
  channelHealth.succeeded(channel, Date.now() - sentAt);
  authFailures?.answered(channel);
}

export function attemptFailed({ circuits, channelHealth, authFailures }: Trackers, channel: string, sentAt: number, status: number | undefined, message: string, vendorMessage?: string): void {
  circuits.onFailure(channel);
  channelHealth.failed(channel, Date.now() - sentAt, status, message, vendorMessage);
  authFailures?.failed(channel, status, message, vendorMessage);
}
