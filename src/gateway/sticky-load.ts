/**
 * What bounded-load sticky routing remembers on this instance (issue 33): each channel's recent
 * traffic (a count that halves every `halfLifeMs`) and the channel each recent conversation was
 * given. A prefix that everyone shares can no longer pin everything on one channel: a new
 * conversation whose hashed channel holds clearly more than its weighted share goes to the next
 * one, as OpenAI's prompt-cache routing spills a hot prefix; a conversation already placed stays.
 */
export class StickyLoad {
  private readonly recent = new Map<string, { count: number; at: number }>();
  /** conversation → channel, oldest first (a Map keeps insertion order), at most `maxConversations`. */
  private readonly homes = new Map<string, string>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly halfLifeMs = 60_000,
    private readonly maxConversations = 20_000,
  ) {}

  /** One more request sent to the channel. */
  note(channel: string): void {
    const at = this.now();
    const entry = this.recent.get(channel);
    if (!entry) this.recent.set(channel, { count: 1, at });
    else {
      entry.count = decayed(entry.count, at - entry.at, this.halfLifeMs) + 1;
      entry.at = at;
    }
  }

  /** The channel's recent traffic, decayed to `at`. */
  load(channel: string, at: number): number {
    const entry = this.recent.get(channel);
    return entry ? decayed(entry.count, at - entry.at, this.halfLifeMs) : 0;
  }

  homeOf(conversation: string): string | undefined {
    return this.homes.get(conversation);
  }

  place(conversation: string, channel: string): void {
    if (this.homes.get(conversation) === channel) return;
    this.homes.delete(conversation);
    this.homes.set(conversation, channel);
    if (this.homes.size > this.maxConversations) this.homes.delete(this.homes.keys().next().value!);
  }

  time(): number {
    return this.now();
  }
}

const decayed = (count: number, elapsedMs: number, halfLifeMs: number): number => (elapsedMs <= 0 ? count : count * 2 ** (-elapsedMs / halfLifeMs));
