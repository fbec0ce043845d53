import type { Clock } from '../../src/core/clock.ts';

/** A clock that moves only when told, starting at the real time. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start = Date.now()) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
