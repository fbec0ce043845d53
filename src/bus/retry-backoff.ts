import type { RetryBackoff } from '../core/ports/bus.ts';

export const defaultRetryBackoff: Readonly<RetryBackoff> = Object.freeze({ initialDelayMs: 100, maxDelayMs: 30_000 });
