import type { ApnsAnswer, FakeApnsOptions, FakeApnsStats } from './fake-apns.ts';

/** A provider key as it crosses the process boundary: the public key as PEM. */
export interface SerializedApnsKey {
  keyId: string;
  teamId: string;
  publicKeyPem: string;
  topics?: string[];
}

/** Settings of a fake APNs in its own process; the clock is the child's system clock, and payloads are not tagged. */
export interface FakeApnsProcessOptions extends Omit<FakeApnsOptions, 'clock' | 'keys' | 'tagger'> {
  keys?: SerializedApnsKey[];
}

/** What the child reports: counts only, whatever its record mode. */
export interface FakeApnsCounts {
  requests: number;
  deliveries: number;
  distinctTokens: number;
  duplicates: number;
  stats: FakeApnsStats;
  /** The child's own CPU time since it started, µs. */
  cpu: { user: number; system: number };
}

export type FakeApnsCommand =
  | { type: 'start'; options: FakeApnsProcessOptions }
  | { type: 'counts' }
  | { type: 'countOf'; token: string }
  | { type: 'respondTo'; token: string; answers: ApnsAnswer[] }
  | { type: 'setDefaultAnswer'; answer: ApnsAnswer }
  | { type: 'goaway'; options: { refuseInFlight?: boolean; keepConnection?: boolean } }
  | { type: 'goawayEverySession'; on: boolean }
  | { type: 'reset' }
  | { type: 'close' };

