/** What one Authenticate answer says about a token, kept so the next calls with it need no round trip. */
export interface KeptAnswer {
  userId: string;
  sessionId: string;
  /** The token's companies (asked without Company values); each call narrows them itself. */
  companyIds: string[];
  /** The token's expiry or the end of the keeping time, whichever comes first (ms). */
  until: number;
  /** The kid of the key that signed the token: the answer is used only while that key is published. */
  keyId: string;
}

const MAX_ENTRIES = 100_000;

/**
 * Authenticate answers by the exact token string: a token that differs in one byte is another
 * key, so it is never believed without the auth service checking it (signature, algorithm,
 * iss, aud, exp). Only tokens the auth service accepted get in, so the size is bounded by live
 * sessions; over MAX_ENTRIES everything is dropped (the next calls ask again).
 */
export class KeptAnswers {
  private readonly entries = new Map<string, KeptAnswer>();

  get(token: string, now = Date.now()): KeptAnswer | undefined {
    const entry = this.entries.get(token);
    if (entry && entry.until <= now) {
      this.entries.delete(token);
      return undefined;
    }
    return entry;
  }

  keep(token: string, answer: KeptAnswer): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(token, answer);
  }

  clear(): void {
    this.entries.clear();
  }
}
