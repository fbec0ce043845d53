/** Source of the current time, injected so that time-dependent rules can be tested. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** ISO 8601 UTC with milliseconds, the timestamp format of the wire. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
