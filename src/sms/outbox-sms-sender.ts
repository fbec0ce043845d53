import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isoTime, systemClock, type Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { SmsMessage, SmsSender } from '../core/ports/sms-sender.ts';

export interface OutboxSmsSenderOptions {
  /** Folder of the outbox file; created when needed. */
  dir: string;
  appId: string;
  logger: Logger;
  clock?: Clock;
  /**
   * Log each code, so that a developer can sign in by phone without an SMS
   * provider. Only for the development app (src/config/dev-keys.ts); default false.
   */
  logCodes?: boolean;
}

/**
 * The embedded default SMS sender: appends one JSON line per message to
 * `<dir>/sms-<appId>.jsonl` and logs that it did, with the code when
 * `logCodes` is set.
 */
export class OutboxSmsSender implements SmsSender {
  readonly #dir: string;
  readonly #file: string;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #logCodes: boolean;
  #ready: Promise<unknown> | undefined;

  constructor(options: OutboxSmsSenderOptions) {
    this.#dir = options.dir;
    this.#file = join(options.dir, `sms-${options.appId}.jsonl`);
    this.#logger = options.logger;
    this.#clock = options.clock ?? systemClock;
    this.#logCodes = options.logCodes ?? false;
  }

  /** Appends `{time, to, code, text}` to the outbox file and logs number and file (and code, with `logCodes`) at info. */
  async send(message: SmsMessage): Promise<void> {
    this.#ready ??= mkdir(this.#dir, { recursive: true });
    await this.#ready;
    const line = JSON.stringify({ time: isoTime(this.#clock.now()), to: message.to, code: message.code, text: message.text });
    // One write per line, so lines of concurrent sends never interleave.
    await appendFile(this.#file, `${line}\n`);
    const code = this.#logCodes ? { code: message.code } : {};
    this.#logger.info({ to: message.to, ...code, file: this.#file }, 'SMS code written to outbox');
  }
}
