import type { ServiceUnavailableError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';

interface Outage {
  startedAt: number;
  lastAt: number;
  refused: number;
  timer: NodeJS.Timeout;
}

/**
 * Logs a backend outage as two lines, when the first request is refused
 * for it and when it is over (the first `quietMs` without a refusal), with
 * how many requests were refused, instead of an error with a stack trace
 * per refused request.
 */
export class OutageLog {
  readonly #logger: Logger;
  readonly #quietMs: number;
  readonly #open = new Map<string, Outage>();

  constructor(logger: Logger, options: { quietMs?: number } = {}) {
    this.#logger = logger;
    this.#quietMs = options.quietMs ?? 10_000;
  }

  /** A request answered 503 because `error.service` could not be reached. */
  refused(error: ServiceUnavailableError): void {
    const now = Date.now();
    const outage = this.#open.get(error.service);
    if (outage !== undefined) {
      outage.refused += 1;
      outage.lastAt = now;
      outage.timer.refresh();
      return;
    }
    const cause = error.cause instanceof Error ? error.cause.message : undefined;
    this.#logger.warn({ dependency: error.service, cause }, `${error.service} is unavailable: requests that need it answer 503 until it is back`);
    const timer = setTimeout(() => this.#end(error.service), this.#quietMs).unref();
    this.#open.set(error.service, { startedAt: now, lastAt: now, refused: 1, timer });
  }

  #end(service: string): void {
    const outage = this.#open.get(service);
    if (outage === undefined) return;
    clearTimeout(outage.timer);
    this.#open.delete(service);
    this.#logger.info(
      { dependency: service, refused: outage.refused, seconds: Math.round((outage.lastAt - outage.startedAt) / 100) / 10 },
      `${service} outage over: no request refused for it in ${this.#quietMs / 1000} s`,
    );
  }
}
