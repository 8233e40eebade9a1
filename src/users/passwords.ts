/**
 * The argon2 binding (a native module, a few MiB resident) is loaded at the first sign-in or
 * invitation, not in every gateway process (issue 24).
 */
let argon2: Promise<typeof import('@node-rs/argon2')> | undefined;
const loadArgon2 = () => (argon2 ??= import('@node-rs/argon2'));

/** Invitees choose passwords of at least this many characters. */
export const MIN_PASSWORD_LENGTH = 10;

/** argon2id with the library's defaults (19 MiB, 2 passes: OWASP's recommended minimum). */
export const hashPassword = async (password: string): Promise<string> => (await loadArgon2()).hash(password);

/**
 * A hash of a password nobody has, verified against when the email is unknown, so that an
 * unknown address takes as long to refuse as a wrong password (no user enumeration by timing).
 */
let decoy: Promise<string> | undefined;

/** Whether `password` matches `stored` (a PHC string); a null `stored` still costs one verification. */
export async function passwordMatches(stored: string | null, password: string): Promise<boolean> {
  const { hash, verify } = await loadArgon2();
  const target = stored ?? (await (decoy ??= hash('no such user: a decoy password')));
  try {
    const ok = await verify(target, password);
    return stored !== null && ok;
  } catch {
    // A malformed stored hash is a refusal, not a crash.
    return false;
  }
}
