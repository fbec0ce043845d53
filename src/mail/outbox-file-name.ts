import { randomBytes } from 'node:crypto';

/**
 * Names outbox files so that a plain sort lists them in the order they were
 * written: UTC time to the millisecond, a per-writer counter for the same
 * millisecond, and random bytes so two processes never collide.
 */
export class OutboxFileNames {
  #lastMs = -1;
  #sequence = 0;

  next(nowMs: number, extension: string): string {
    if (nowMs === this.#lastMs) this.#sequence += 1;
    else {
      this.#lastMs = nowMs;
      this.#sequence = 0;
    }
    const time = new Date(nowMs).toISOString().replace(/[-:]/g, '').replace('.', '');
    const sequence = String(this.#sequence).padStart(4, '0');
    return `${time}-${sequence}-${randomBytes(4).toString('hex')}.${extension}`;
  }
}
