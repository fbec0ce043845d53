import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import { loggable } from './delivery-reasons.ts';
import type { GatewayName } from './delivery.ts';
import { LogThrottle } from './log-throttle.ts';

/** One line a minute at most per gateway client, whatever the gateway keeps answering. */
const intervalMs = 60_000;

/**
 * Where the words a gateway answered outside the documented reasons go: a
 * delivery counts them as `Other`, and this logs them at `warn`, cut to 200
 * characters, the first at once and then one line a minute with how many
 * more came meanwhile.
 */
export class UnknownReasonLog {
  readonly #logger: Logger | undefined;
  readonly #gateway: GatewayName;
  readonly #throttle: LogThrottle;

  constructor(options: { gateway: GatewayName; logger: Logger | undefined; clock: Clock }) {
    this.#logger = options.logger;
    this.#gateway = options.gateway;
    this.#throttle = new LogThrottle({ intervalMs, clock: options.clock });
  }

  /** An answer (HTTP `status`) whose reason is `Other`: its `word` if it had one, else the start of its body. */
  answer(status: number, word: string | undefined, body: Buffer | undefined): void {
    const logger = this.#logger;
    if (logger === undefined) return;
    const held = this.#throttle.admit('answer');
    if (held === undefined) return;
    const said = word !== undefined ? { word: loggable(word) } : { body: body === undefined ? '' : loggable(body.toString('utf8', 0, 256)) };
    logger.warn({ gateway: this.#gateway, status, ...said, heldBack: held }, 'gateway answered a reason outside the documented set: counted as Other');
  }

  /** A request that got no answer, for a reason the transports do not document. */
  failure(word: string): void {
    const logger = this.#logger;
    if (logger === undefined) return;
    const held = this.#throttle.admit('failure');
    if (held === undefined) return;
    logger.warn({ gateway: this.#gateway, word: loggable(word), heldBack: held }, 'request failed for a reason outside the documented set: counted as Other');
  }
}
