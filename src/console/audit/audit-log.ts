/** One change made through the console, or one refused: who, what, when. */
export interface AuditEntry {
  /** ISO 8601 time of the change. */
  at: string;
  /** Console username; for a failed sign-in, the name that was typed. */
  actor: string;
  /** What was done, e.g. `push.send`, `user.unlock`, `session.sign-in`. */
  action: string;
  /** The app it was done in; null for the console's own (sign-in, sign-out). */
  app: string | null;
  /** What it was done to: a push, scheduled push, installation or user id. */
  target: string | null;
  /** `ok`, or why it did not happen (`refused`, `failed`, `locked`). */
  outcome: string;
  /** A few words more, never a secret (e.g. the audience of a push). */
  detail: string;
}

export interface AuditQuery {
  /** The apps whose entries to answer; `*` for every app and the console's own entries. */
  apps: readonly string[] | '*';
  /** Newest first, at most this many. */
  limit: number;
}

/** Where console changes are written and read back by admins. */
export interface AuditLog {
  record(entry: AuditEntry): Promise<void>;
  list(query: AuditQuery): Promise<AuditEntry[]>;
}
