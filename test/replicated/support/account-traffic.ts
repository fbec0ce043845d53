import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { NoAnswerError, type ApiClient } from '../../cluster/api-client.ts';

/** A user whose sign-up was acknowledged (201): it must be there afterwards, whatever happened meanwhile. */
export interface AcknowledgedUser {
  username: string;
  password: string;
  objectId: string;
}

/**
 * Sign-ups of fresh users and logins of acknowledged ones, sent by a few
 * workers to the API nodes in turn for as long as it runs, as apps keep
 * doing while a store node dies. A sign-up answered 201 is acknowledged;
 * 503 or no answer leaves its outcome unknown (a client would retry); any
 * other answer, or a refused login of an acknowledged user, is unexpected.
 */
export class AccountTraffic {
  readonly acknowledged: AcknowledgedUser[] = [];
  /** Sign-ups answered 503 or not at all. */
  readonly unknown: string[] = [];
  readonly unexpected: string[] = [];
  logins = 0;
  /** Logins answered 503 or not at all. */
  loginsUnavailable = 0;
  readonly #prefix = `u${randomBytes(3).toString('hex')}`;
  readonly #stop = new AbortController();
  #next = 0;

  /** Runs `workers` loops over `clients` until `stop`. */
  async run(clients: readonly ApiClient[], workers = 6): Promise<void> {
    await Promise.all(Array.from({ length: workers }, (_, worker) => this.#loop(clients, worker)));
  }

  async stop(running: Promise<void>): Promise<void> {
    this.#stop.abort();
    await running;
  }

  describe(): string {
    return `${this.acknowledged.length} sign-ups acknowledged, ${this.unknown.length} unknown (503 or no answer), ${this.logins} logins (${this.loginsUnavailable} unavailable), unexpected: ${this.unexpected.slice(0, 5).join('; ') || 'none'}`;
  }

  async #loop(clients: readonly ApiClient[], worker: number): Promise<void> {
    for (let round = 0; !this.#stop.signal.aborted; round++) {
      const client = clients[(worker + round) % clients.length] as ApiClient;
      await this.#signUp(client);
      const known = this.acknowledged[Math.floor(Math.random() * this.acknowledged.length)];
      if (known !== undefined) await this.#logIn(client, known);
      await delay(20, undefined, { signal: this.#stop.signal }).catch(() => undefined);
    }
  }

  async #signUp(client: ApiClient): Promise<void> {
    const username = `${this.#prefix}-${this.#next++}`;
    const password = randomBytes(9).toString('base64url');
    try {
      const answer = await client.request('POST', '/1.1/users', { body: { username, password } });
      if (answer.status === 201) this.acknowledged.push({ username, password, objectId: String(answer.body.objectId) });
      else if (answer.status === 503) this.unknown.push(username);
      else this.unexpected.push(`sign-up of ${username} answered ${answer.status} ${JSON.stringify(answer.body)}`);
    } catch (error) {
      if (!(error instanceof NoAnswerError)) throw error;
      this.unknown.push(username);
    }
  }

  async #logIn(client: ApiClient, user: AcknowledgedUser): Promise<void> {
    this.logins++;
    try {
      const answer = await client.request('POST', '/1.1/login', { body: { username: user.username, password: user.password } });
      if (answer.status === 503) this.loginsUnavailable++;
      else if (answer.status !== 200) this.unexpected.push(`login of ${user.username} answered ${answer.status} ${JSON.stringify(answer.body)}`);
    } catch (error) {
      if (!(error instanceof NoAnswerError)) throw error;
      this.loginsUnavailable++;
    }
  }
}

/** One answer of a sign-up race. */
export interface RaceAnswer {
  status: number;
  code: unknown;
  error: unknown;
  password: string;
  objectId: string | undefined;
}

/** `count` sign-ups of one username at once over `clients`, each with a password of its own: their answers. */
export async function signUpRace(clients: readonly ApiClient[], username: string, count: number): Promise<RaceAnswer[]> {
  const passwords = Array.from({ length: count }, () => randomBytes(9).toString('base64url'));
  return Promise.all(
    passwords.map(async (password, n) => {
      const answer = await (clients[n % clients.length] as ApiClient).request('POST', '/1.1/users', { body: { username, password } });
      return { status: answer.status, code: answer.body.code, error: answer.body.error, password, objectId: answer.body.objectId as string | undefined };
    }),
  );
}
