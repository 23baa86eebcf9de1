/**
 * Who has already been refused today (UTC): a stranger gets one polite refusal per day, however
 * often they write. Kept in memory only (decision, apps/bot/README.md "Strangers"): strangers leave
 * nothing in Bria's tables, and a restart of the bot costs at most one more refusal. Bounded, so a
 * flood of strangers cannot grow the bot's memory: once `max` strangers were refused in one day,
 * further new ones that day get no refusal (silence costs nothing Bria promised).
 */
export class StrangerRefusals {
  private day = '';
  private readonly refused = new Set<number>();

  constructor(private readonly max = 10_000) {}

  /** True when this user should be refused now (the first time today); remembers that they were. */
  take(userId: number, now: Date): boolean {
    const day = now.toISOString().slice(0, 10);
    if (day !== this.day) {
      this.day = day;
      this.refused.clear();
    }
    if (this.refused.has(userId) || this.refused.size >= this.max) return false;
    this.refused.add(userId);
    return true;
  }
}
