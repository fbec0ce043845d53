import type { WriteStream } from 'node:tty';

/**
 * A one-line progress bar redrawn in place, at most ten times a second. It
 * draws only on a terminal: in a pipe or a log file it stays quiet, and the
 * caller's summary lines are what remains.
 */
export class ProgressBar {
  readonly #label: string;
  readonly #total: number;
  readonly #out: WriteStream | undefined;
  readonly #startedAt = performance.now();
  #drawnAt = 0;
  #done = 0;

  constructor(label: string, total: number, out: NodeJS.WriteStream = process.stdout) {
    this.#label = label;
    this.#total = Math.max(1, total);
    this.#out = out.isTTY ? out : undefined;
  }

  /** Sets the amount done; `note` is shown after the figures. */
  update(done: number, note = ''): void {
    this.#done = done;
    const now = performance.now();
    if (now - this.#drawnAt < 100) return;
    this.#drawnAt = now;
    this.#draw(note);
  }

  /** Draws the final state and ends the line. */
  finish(note = ''): void {
    if (this.#out === undefined) return;
    this.#draw(note);
    this.#out.write('\n');
  }

  #draw(note: string): void {
    const out = this.#out;
    if (out === undefined) return;
    const share = Math.min(1, this.#done / this.#total);
    const seconds = (performance.now() - this.#startedAt) / 1000;
    const rate = seconds > 0 ? Math.round(this.#done / seconds) : 0;
    const width = 30;
    const filled = Math.round(share * width);
    const bar = `${'#'.repeat(filled)}${'-'.repeat(width - filled)}`;
    const figures = `${this.#done.toLocaleString('en-US')}/${this.#total.toLocaleString('en-US')} ${(share * 100).toFixed(0).padStart(3)}% ${rate.toLocaleString('en-US')}/s`;
    const line = `${this.#label.padEnd(10)} [${bar}] ${figures}${note === '' ? '' : ` ${note}`}`;
    out.write(`\r${line.slice(0, (out.columns ?? 120) - 1)}\x1b[K`);
  }
}
