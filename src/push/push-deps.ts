import type { PushEngineConfig } from '../config/push-schema.ts';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { Bus } from '../core/ports/bus.ts';
import type { Coordination } from '../core/ports/coordination.ts';
import type { Store } from '../core/ports/object-store.ts';
import type { PushTopics } from './push-topics.ts';

/** What accepting, listing and cancelling pushes needs from the rest of the service. */
export interface PushDeps {
  store: Store;
  coord: Coordination;
  bus: Bus;
  topics: PushTopics;
  clock: Clock;
  logger: Logger;
  settings: PushEngineConfig;
  metrics: PushApiMetrics;
}

/** What the API counts about pushes. */
export interface PushApiMetrics {
  /** A push accepted: `now` (sent at once) or `scheduled`. */
  accepted(appId: string, when: 'now' | 'scheduled'): void;
}
