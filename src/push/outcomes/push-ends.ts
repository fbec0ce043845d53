/**
 * Told wherever a push may have reached its final status (`done` or
 * `Error`): a sender recorded a task's final slice or gave a push up, the
 * fan-out settled a record. The status is derived on read (the final slices
 * against `expectedTasks`), so no single writer knows it ended; whoever is
 * told reads the record to see. Never waits and never throws.
 */
export interface PushEnds {
  mayHaveEnded(appId: string, pushId: string): void;
}

/** Tells no one: a process whose apps take no `push.done`. */
export const noPushEnds: PushEnds = Object.freeze({ mayHaveEnded: () => {} });
