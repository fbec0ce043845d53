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
}

/**
 * The embedded default SMS sender: appends one JSON line per message to
 * `<dir>/sms-<appId>.jsonl` and logs number and code, so a developer can log
 * in by phone without an SMS provider.
 */
export class OutboxSmsSender implements SmsSender {
  readonly #dir: string;
  readonly #file: string;
  readonly #logger: Logger;
  readonly #clock: Clock;
  #ready: Promise<unknown> | undefined;

  constructor(options: OutboxSmsSenderOptions) {
    this.#dir = options.dir;
    this.#file = join(options.dir, `sms-${options.appId}.jsonl`);
    this.#logger = options.logger;
    this.#clock = options.clock ?? systemClock;
  }

  /** Appends `{time, to, code, text}` to the outbox file and logs number and code at info. */
  async send(message: SmsMessage): Promise<void> {
    this.#ready ??= mkdir(this.#dir, { recursive: true });
    await this.#ready;
    const line = JSON.stringify({ time: isoTime(this.#clock.now()), to: message.to, code: message.code, text: message.text });
    // One write per line, so lines of concurrent sends never interleave.
    await appendFile(this.#file, `${line}\n`);
    this.#logger.info({ to: message.to, code: message.code, file: this.#file }, 'SMS code written to outbox');
  }
}
