import { setTimeout as delay } from 'node:timers/promises';
import type { ArrayOrObject, QueryOptions, types } from 'cassandra-driver';
import { ServiceUnavailableError } from '../../core/errors.ts';
import type { AdaptiveLimit } from './adaptive-limit.ts';
import type { CqlSession, CqlStatement } from './cassandra-client.ts';
import { cassandraFailureKind } from './cassandra-errors.ts';

export interface PacingOptions {
  /** How many statements may be in flight; grown and shrunk with the answers. */
  limit: AdaptiveLimit;
  /** Gives up once a statement has failed for this long with no statement answered meanwhile. */
  patienceMs: number;
  /** Stops retrying once aborted: the failure at hand is thrown. */
  signal?: AbortSignal;
  /** A monotonic clock in ms. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/** What the writes met: how many were answered and retried, and how the limit moved. */
export interface PacingReport {
  answered: number;
  retried: number;
  /** Timeouts and overloaded answers. */
  congested: number;
  /** No node, too few replicas, a lost connection. */
  unreachable: number;
  /** How long the last answered statement took, and how long ago it was answered. */
  lastLatencyMs: number | null;
  msSinceLastAnswer: number | null;
  startingLimit: number;
  lowestLimit: number;
  limit: number;
  lastFailure: string | null;
}

/** A pause before attempt `attempt + 1`: random, up to 100 ms × 2^attempt, never more than 5 s. */
const backoffCapMs = 5000;
const backoffBaseMs = 100;

/**
 * Thrown once Cassandra has answered nothing for the patience: it is gone,
 * not slow. Not to be retried by the caller; its message says what the
 * writes met.
 */
export class CassandraGoneError extends ServiceUnavailableError {
  override readonly retryable: boolean = false;
  readonly report: PacingReport;

  constructor(report: PacingReport, patienceMs: number, cause: unknown) {
    super('Cassandra', cause);
    this.report = report;
    this.message = `${this.message}: ${describeGone(report, patienceMs)}`;
  }
}

/**
 * A session for a writer that has many statements to send and may wait:
 * every statement takes a permit of the adaptive limit, reports its latency
 * to it, and is sent again, after a growing random pause, while Cassandra is
 * slow (timeouts, overloaded) or out of reach, until nothing has been
 * answered for the patience. Only for statements that may be sent twice: a
 * lightweight transaction sent again finds its own earlier write applied,
 * and its caller must take that for success.
 */
export class PacedSession implements CqlSession {
  readonly #session: CqlSession;
  readonly #limit: AdaptiveLimit;
  readonly #patienceMs: number;
  readonly #signal: AbortSignal | undefined;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #random: () => number;
  readonly #startingLimit: number;
  #lastAnswerAt: number;
  #lastLatencyMs: number | null = null;
  #answered = 0;
  #retried = 0;
  #congested = 0;
  #unreachable = 0;
  #lastFailure: string | null = null;

  constructor(session: CqlSession, options: PacingOptions) {
    this.#session = session;
    this.#limit = options.limit;
    this.#patienceMs = options.patienceMs;
    this.#signal = options.signal;
    this.#now = options.now ?? (() => performance.now());
    this.#sleep = options.sleep ?? ((ms) => delay(ms));
    this.#random = options.random ?? Math.random;
    this.#startingLimit = options.limit.limit;
    this.#lastAnswerAt = this.#now();
  }

  execute(query: string, params?: ArrayOrObject, options?: QueryOptions): Promise<types.ResultSet> {
    return this.#run(kindOf(query, 1, false), () => this.#session.execute(query, params, options));
  }

  batch(statements: CqlStatement[], options?: QueryOptions): Promise<types.ResultSet> {
    return this.#run(kindOf(statements[0]?.query ?? '', statements.length, true), () => this.#session.batch(statements, options));
  }

  report(): PacingReport {
    return {
      answered: this.#answered,
      retried: this.#retried,
      congested: this.#congested,
      unreachable: this.#unreachable,
      lastLatencyMs: this.#lastLatencyMs,
      msSinceLastAnswer: this.#answered === 0 ? null : Math.round(this.#now() - this.#lastAnswerAt),
      startingLimit: this.#startingLimit,
      lowestLimit: this.#limit.lowest,
      limit: this.#limit.limit,
      lastFailure: this.#lastFailure,
    };
  }

  async #run(kind: string, send: () => Promise<types.ResultSet>): Promise<types.ResultSet> {
    const firstSent = this.#now();
    for (let attempt = 1; ; attempt += 1) {
      const permit = await this.#limit.acquire();
      const sent = this.#now();
      try {
        const result = await send();
        const answered = this.#now();
        permit.release({ kind, latencyMs: answered - sent });
        this.#answered += 1;
        this.#lastAnswerAt = answered;
        this.#lastLatencyMs = Math.round(answered - sent);
        return result;
      } catch (error) {
        const failure = cassandraFailureKind(error);
        permit.release(failure === 'congested' ? 'congested' : 'ignored');
        if (failure === null) throw error;
        if (failure === 'congested') this.#congested += 1;
        else this.#unreachable += 1;
        this.#lastFailure = describeFailure(error);
        const now = this.#now();
        if (now - firstSent >= this.#patienceMs && now - this.#lastAnswerAt >= this.#patienceMs) {
          throw new CassandraGoneError(this.report(), this.#patienceMs, error);
        }
        if (this.#signal?.aborted) throw error;
        this.#retried += 1;
        await this.#sleep(this.#random() * Math.min(backoffCapMs, backoffBaseMs * 2 ** attempt));
      }
    }
  }
}

/** The sort of statement whose latencies are comparable: a read, a write or a transaction, and a batch's size to a power of two. */
function kindOf(query: string, statements: number, batch: boolean): string {
  const sort = /^\s*select\b/i.test(query) ? 'read' : /\bIF\b/.test(query) ? 'transaction' : 'write';
  return batch ? `${sort} batch of ${2 ** Math.ceil(Math.log2(Math.max(1, statements)))}` : sort;
}

function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error instanceof ServiceUnavailableError && error.cause instanceof Error ? error.cause : error;
  return `${cause.name}: ${cause.message.split('\n')[0] ?? ''}`.slice(0, 300);
}

function describeGone(report: PacingReport, patienceMs: number): string {
  const count = (value: number) => value.toLocaleString('en-US');
  const answered =
    report.answered === 0
      ? 'no statement was answered at all'
      : `${count(report.answered)} statements were answered before, the last in ${report.lastLatencyMs ?? '?'} ms, ${((report.msSinceLastAnswer ?? 0) / 1000).toFixed(0)} s ago`;
  return (
    `nothing answered for ${(patienceMs / 1000).toFixed(0)} s while retrying (${count(report.congested)} timeouts or overloaded answers, ` +
    `${count(report.unreachable)} unreachable, ${count(report.retried)} retries; last: ${report.lastFailure ?? 'none'}); ${answered}; ` +
    `${report.limit} statements in flight allowed at the end (${report.startingLimit} at the start, ${report.lowestLimit} at the lowest)`
  );
}
