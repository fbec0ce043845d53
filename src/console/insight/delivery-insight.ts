import type { AppRuntime } from '../../accounts/account-deps.ts';

/** One device's final outcome of one push, as a delivery log records it (issue 31). */
export interface DeliveryEntry {
  /** The installation's objectId; null for a device a `/push/devices` request named by its token alone. */
  installation: string | null;
  /** The last 8 characters of the token or registrationId sent to; null when there was none. */
  tokenSuffix: string | null;
  /** The push it belongs to. */
  push: string;
  /** The gateway the device goes through (`apns`, `fcm`, `hms`, …). */
  gateway: string;
  outcome: 'delivered' | 'invalidToken' | 'failed';
  /** The documented reason; empty when delivered. */
  reason: string;
  attempts: number;
  /** ISO time of the outcome; null when not known. */
  at: string | null;
}

/** A push's failures: device by device when a delivery log keeps them, else counts by reason. */
export interface FailureReport {
  /** True when `entries` lists devices; false when only counts by reason are known. */
  perDevice: boolean;
  byReason: { reason: string; count: number }[];
  /** The failed devices of this page, newest first; empty when `perDevice` is false. */
  entries: DeliveryEntry[];
  /** Cursor of the next page of `entries`, or null. */
  next: string | null;
  /** Where the figures come from, said beside them. */
  source: string;
}

/** One rule of a push's audience, judged for one device. */
export interface RuleCheck {
  rule: string;
  /** True when the rule lets the device be sent to, false when it stops it, null when it cannot be told. */
  passed: boolean | null;
  detail: string;
}

/** "Why didn't this device get it?" for one device and one push. */
export interface DeviceExplanation {
  /** The installation the device was found as, or null when none holds what was typed. */
  installation: { objectId: string; deviceType: string; updatedAt: string } | null;
  /** The audience's rules, in the order the engine applies them. */
  checks: RuleCheck[];
  /** One sentence: the first rule that stopped the device, or what is known of its delivery. */
  verdict: string;
  /** The delivery log's entries for the device; null where no delivery log is kept. */
  log: DeliveryEntry[] | null;
}

export interface FailurePage {
  limit: number;
  cursor: string | null;
}

/** A page of a device's outcomes, newest first, and the delivery log's cursor of the next (older) page, or null. */
export interface DeviceHistory {
  entries: DeliveryEntry[];
  next: string | null;
}

/**
 * Where the push page gets failures and explanations: the console's port
 * onto delivery outcomes. `LogDeliveryInsight` answers from the delivery
 * log (`listPushDeliveries`, `explainDelivery`,
 * `listInstallationDeliveries`); `RecordDeliveryInsight` from the push
 * record's counts alone, where the log is off or holds nothing of a device.
 */
export interface DeliveryInsight {
  /** The push's failures; `push` is the record as `getPushRecord` answers it. */
  failures(app: AppRuntime, push: Readonly<Record<string, unknown>>, page: FailurePage): Promise<FailureReport>;
  /** Why one device (installation objectId, iOS token, installationId or registrationId) did or did not get the push; null when the push is unknown. */
  explain(app: AppRuntime, pushId: string, device: string): Promise<DeviceExplanation | null>;
  /** A page of an installation's outcomes, newest first, from `page.cursor` (null: the latest); null where no delivery log is kept. */
  deviceHistory(app: AppRuntime, installationId: string, page: FailurePage): Promise<DeviceHistory | null>;
}
