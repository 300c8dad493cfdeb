/** How long a successful sign-in makes its address known for the account. */
export const KNOWN_FOR_SECONDS = 30 * 24 * 3600;
const PRUNE_EVERY_MS = 3600_000;
/** Positive answers kept in the process, at most this many (then all are dropped). */
const MEMORY_LIMIT = 100_000;

export interface SignInRecords {
  recordSignIn(digest: string, at: Date): Promise<void>;
  signedInSince(digest: string, since: Date): Promise<boolean>;
  pruneSignIns(before: Date): Promise<void>;
}

/**
 * Which client addresses each account signed in from within KNOWN_FOR_SECONDS, by digest
 * (TokenRateLimits makes it, keyed with a server secret): in the auth database, shared by
 * every replica and surviving restarts and Redis losing its data; positive answers are also
 * kept in the process.
 */
export class KnownAddresses {
  private readonly known = new Map<string, number>();
  private lastPrune = 0;

  constructor(private readonly records: SignInRecords) {}

  async remember(digest: string): Promise<void> {
    const now = Date.now();
    await this.records.recordSignIn(digest, new Date(now));
    this.keep(digest, now + KNOWN_FOR_SECONDS * 1000);
    if (now - this.lastPrune > PRUNE_EVERY_MS) {
      this.lastPrune = now;
      await this.records.pruneSignIns(new Date(now - KNOWN_FOR_SECONDS * 1000));
    }
  }

  async has(digest: string): Promise<boolean> {
    const until = this.known.get(digest);
    if (until !== undefined && until > Date.now()) return true;
    const since = new Date(Date.now() - KNOWN_FOR_SECONDS * 1000);
    if (!(await this.records.signedInSince(digest, since))) return false;
    this.keep(digest, Date.now() + 60_000); // re-read within a minute: the row may be pruned later
    return true;
  }

  private keep(digest: string, until: number): void {
    if (this.known.size >= MEMORY_LIMIT) this.known.clear();
    this.known.set(digest, until);
  }
}
