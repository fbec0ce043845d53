import type { DeliveryLogConfig, SuccessMode } from '../../config/delivery-log-schema.ts';
import type { AppSettings } from '../../config/schema.ts';

const dayMs = 86_400_000;

/** What the delivery log keeps of one app's pushes, and for how long. */
export interface DeliveryLogPolicy {
  /** Whether anything is written (`push.deliveryLog.enabled`). */
  readonly enabled: boolean;
  readonly retentionMs: number;
  readonly successes: SuccessMode;
  /** With `successes: sampled`: the fraction of delivered devices kept. */
  readonly sampleRate: number;
}

/**
 * The app's policy: its own `settings.deliveryLog` over `push.deliveryLog`,
 * whose retention defaults to the push records' (`push.retentionDays`).
 */
export function deliveryLogPolicy(engine: { retentionDays: number; deliveryLog: DeliveryLogConfig }, app: Pick<AppSettings, 'deliveryLog'> | undefined): DeliveryLogPolicy {
  const global = engine.deliveryLog;
  const own = app?.deliveryLog ?? {};
  return Object.freeze({
    enabled: global.enabled,
    retentionMs: (own.retentionDays ?? global.retentionDays ?? engine.retentionDays) * dayMs,
    successes: own.successes ?? global.successes,
    sampleRate: own.sampleRate ?? global.sampleRate,
  });
}
