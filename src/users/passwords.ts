import { hash, verify } from '@node-rs/argon2';

/** Invitees choose passwords of at least this many characters. */
export const MIN_PASSWORD_LENGTH = 10;

/** argon2id with the library's defaults (19 MiB, 2 passes: OWASP's recommended minimum). */
export const hashPassword = (password: string): Promise<string> => hash(password);

/**
 * A hash of a password nobody has, verified against when the email is unknown, so that an
 * unknown address takes as long to refuse as a wrong password (no user enumeration by timing).
 */
let decoy: Promise<string> | undefined;

/** Whether `password` matches `stored` (a PHC string); a null `stored` still costs one verification. */
export async function passwordMatches(stored: string | null, password: string): Promise<boolean> {
  const target = stored ?? (await (decoy ??= hash('no such user: a decoy password')));
  try {
    const ok = await verify(target, password);
    return stored !== null && ok;
  } catch {
    // A malformed stored hash is a refusal, not a crash.
    return false;
  }
}
