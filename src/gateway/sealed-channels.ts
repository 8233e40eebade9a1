import type { SealedChannel } from './channel-store.js';

/**
 * What an operator reads when stored channel credentials cannot be opened (issue 34): which
 * channels, which key sealed them and which key this instance has (key ids are the first 8 hex
 * digits of the key's SHA-256: not secret, enough to tell keys apart), and the ways out.
 */
export function describeSealedChannels(sealed: readonly SealedChannel[], keyId: string | undefined): string {
  const which = sealed.map((channel) => `'${channel.name}' (sealed with key ${channel.sealedWith})`).join(', ');
  const have = keyId ? `this instance's key is ${keyId} (GATEWAY_SECRET_KEY, or secret.key in the data directory)` : 'this instance has no key (set GATEWAY_SECRET_KEY)';
  return (
    `the credentials of channel(s) ${which} cannot be opened: ${have}. ` +
    'Start with the key that sealed them (GATEWAY_SECRET_KEY, or GATEWAY_SECRET_KEY_PREVIOUS during a rotation); ' +
    'if that key is lost, start once with GATEWAY_ALLOW_UNOPENABLE_CHANNELS=true (those channels serve nothing and /readyz stays not ready) and delete or re-create them in the admin API'
  );
}
