import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../../core/clock.ts';
import type { Coordination } from '../../core/ports/coordination.ts';

/** A signed-in console session, as kept in the coordination store. */
export interface ConsoleSession {
  /** Digest of the cookie's token: the key it is kept under, never the token itself. */
  id: string;
  username: string;
  /** The synchronizer token every change must carry (`_csrf`). */
  csrf: string;
  /** Digest of the password hash signed in with: a new hash in the config ends the session. */
  credential: string;
  createdAt: number;
  lastSeenAt: number;
}

export interface SessionLimits {
  /** A session unused this long ends. */
  idleMs: number;
  /** A session ends this long after sign-in, used or not. */
  maxMs: number;
}

/** How often a read writes the session back to push its idle expiry on: at most once a minute per session. */
const touchIntervalMs = 60_000;

/**
 * Console sessions in the coordination store (in memory on the embedded
 * default, Redis when nodes share one), so that every API node serving the
 * console knows every session. The cookie carries 256 random bits; the store
 * keeps only their SHA-256. "Sign out everywhere" writes the time it was
 * asked at for the account: a session created at or before it is no longer
 * honoured on any node, with no list of sessions to walk.
 */
export class ConsoleSessions {
  readonly #coord: Coordination;
  readonly #clock: Clock;
  readonly #limits: SessionLimits;

  constructor(deps: { coord: Coordination; clock: Clock }, limits: SessionLimits) {
    this.#coord = deps.coord;
    this.#clock = deps.clock;
    this.#limits = limits;
  }

  /** Starts a session; answers the token for the cookie and the session. */
  async create(username: string, passwordHash: string): Promise<{ token: string; session: ConsoleSession }> {
    const token = randomBytes(32).toString('base64url');
    const now = this.#clock.now();
    const session: ConsoleSession = {
      id: digestOf(token),
      username,
      csrf: randomBytes(32).toString('base64url'),
      credential: credentialMark(passwordHash),
      createdAt: now,
      lastSeenAt: now,
    };
    await this.#write(session);
    return { token, session };
  }

  /**
   * The live session a cookie's token names, or null: unknown, idle too
   * long, past its lifetime, or ended by "sign out everywhere". Pushes its
   * idle expiry on (at most once a minute).
   */
  async read(token: string): Promise<ConsoleSession | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const stored = await this.#coord.get(sessionKey(digestOf(token)));
    const session = stored === null ? null : parseSession(stored);
    if (session === null) return null;
    const now = this.#clock.now();
    if (now - session.createdAt >= this.#limits.maxMs || now - session.lastSeenAt >= this.#limits.idleMs) return null;
    const endedAt = Number((await this.#coord.get(signedOutKey(session.username))) ?? 0);
    if (session.createdAt <= endedAt) return null;
    if (now - session.lastSeenAt >= touchIntervalMs) {
      session.lastSeenAt = now;
      await this.#write(session);
    }
    return session;
  }

  /** Ends one session (sign out). */
  async end(session: ConsoleSession): Promise<void> {
    await this.#coord.delete(sessionKey(session.id));
  }

  /** Ends every session of the account, on every node (sign out everywhere). */
  async endAll(username: string): Promise<void> {
    await this.#coord.set(signedOutKey(username), String(this.#clock.now()), this.#limits.maxMs);
  }

  /** Whether `passwordHash` is the one the session signed in with. */
  static sameCredential(session: ConsoleSession, passwordHash: string): boolean {
    return session.credential === credentialMark(passwordHash);
  }

  async #write(session: ConsoleSession): Promise<void> {
    const left = Math.min(this.#limits.idleMs, session.createdAt + this.#limits.maxMs - this.#clock.now());
    if (left <= 0) return;
    await this.#coord.set(sessionKey(session.id), JSON.stringify(session), left);
  }
}

function digestOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function credentialMark(passwordHash: string): string {
  return createHash('sha256').update(passwordHash).digest('hex').slice(0, 32);
}

function sessionKey(id: string): string {
  return `console:session:${id}`;
}

function signedOutKey(username: string): string {
  return `console:signed-out:${username}`;
}

function parseSession(text: string): ConsoleSession | null {
  try {
    const value = JSON.parse(text) as Partial<ConsoleSession>;
    if (typeof value.id !== 'string' || typeof value.username !== 'string' || typeof value.csrf !== 'string') return null;
    if (typeof value.credential !== 'string' || typeof value.createdAt !== 'number' || typeof value.lastSeenAt !== 'number') return null;
    return value as ConsoleSession;
  } catch {
    return null;
  }
}
