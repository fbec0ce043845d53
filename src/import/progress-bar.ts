import { basename } from 'node:path';
import type { ImportProgress } from './import-run.ts';

/** How often the bar is redrawn. */
const redrawMs = 250;
const width = 28;

/** The terminal the bar is drawn on. */
export interface BarTerminal {
  write(text: string): unknown;
  readonly columns?: number;
}

/**
 * A one-line progress bar on a terminal (stderr, so the summary on stdout
 * stays clean): share of the bytes read, rows settled, rows per second and
 * the time left, redrawn a few times a second.
 */
export class ProgressBar {
  readonly #terminal: BarTerminal;
  readonly #progress: ImportProgress;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;

  constructor(terminal: BarTerminal, progress: ImportProgress, now: () => number) {
    this.#terminal = terminal;
    this.#progress = progress;
    this.#now = now;
  }

  start(): void {
    this.#timer ??= setInterval(() => this.#draw(), redrawMs);
    this.#timer.unref();
  }

  /** Stops redrawing and clears the line. Idempotent. */
  stop(): void {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#terminal.write('\r\x1b[2K');
  }

  #draw(): void {
    this.#terminal.write(`\r\x1b[2K${renderProgress(this.#progress, this.#now(), this.#terminal.columns ?? 100)}`);
  }
}

/** The bar's text, e.g. `[#######·····]  52%  520,000 rows  41,200 rows/s  0:12 left  _User.0.jsonl`. */
export function renderProgress(progress: ImportProgress, now: number, columns: number): string {
  const share = progress.totalBytes > 0 ? Math.min(1, progress.readBytes / progress.totalBytes) : 1;
  const filled = Math.round(share * width);
  const seconds = Math.max(0.001, (now - progress.startedAt) / 1000);
  const rate = progress.rowsThisRun / seconds;
  const left = share > 0 && share < 1 ? formatDuration((seconds / share) * (1 - share)) : '-';
  const text =
    `[${'#'.repeat(filled)}${'·'.repeat(width - filled)}] ${String(Math.floor(share * 100)).padStart(3)}%` +
    `  ${progress.rowsThisRun.toLocaleString('en-US')} rows  ${Math.round(rate).toLocaleString('en-US')} rows/s  ${left} left  ${basename(progress.file)}`;
  return text.slice(0, Math.max(20, columns - 1));
}

function formatDuration(seconds: number): string {
  const whole = Math.round(seconds);
  const minutes = Math.floor(whole / 60);
  return `${Math.floor(minutes / 60) > 0 ? `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}` : minutes}:${String(whole % 60).padStart(2, '0')}`;
}
