import type { AppRuntime } from '../../accounts/account-deps.ts';
import { ErrorCode, HeraldError } from '../../core/errors.ts';
import type { StoredObject } from '../../core/ports/object-store.ts';
import type { DeliveryLogDeps } from '../../push/delivery-log/delivery-log-deps.ts';
import { explainDelivery, type ExplainRule, type PushExplanation } from '../../push/delivery-log/explain-delivery.ts';
import { listInstallationDeliveries } from '../../push/delivery-log/installation-deliveries.ts';
import { listPushDeliveries } from '../../push/delivery-log/push-deliveries.ts';
import type { DeliveryEventJson } from '../../push/outcomes/delivery-event.ts';
import { consoleCaller } from '../routes/console-context.ts';
import type { DeliveryEntry, DeliveryInsight, DeviceExplanation, DeviceHistory, FailurePage, FailureReport, RuleCheck } from './delivery-insight.ts';
import { findInstallation } from './find-installation.ts';
import { RecordDeliveryInsight } from './record-delivery-insight.ts';

const objectIdPattern = /^[A-Za-z0-9]{1,64}$/;

/**
 * Failures, explanations and a device's last outcomes from the delivery log
 * (docs/delivery-log.md), read through the very functions its REST routes
 * call, on the server, with the console's caller: master-key authority in
 * the app, after the console has checked that the account sees the app.
 * With the log switched off (`push.deliveryLog.enabled: false`) the
 * failures are the record's counts and explain shows the rules alone.
 */
export class LogDeliveryInsight implements DeliveryInsight {
  readonly #deps: DeliveryLogDeps;
  readonly #records: RecordDeliveryInsight;

  constructor(deps: DeliveryLogDeps) {
    this.#deps = deps;
    this.#records = new RecordDeliveryInsight({ store: deps.store }, deps.settings);
  }

  get #enabled(): boolean {
    return this.#deps.settings.deliveryLog.enabled;
  }

  async failures(app: AppRuntime, push: Readonly<Record<string, unknown>>, page: FailurePage): Promise<FailureReport> {
    const counts = await this.#records.failures(app, push, page);
    if (!this.#enabled) return { ...counts, source: 'the push record\'s counts by reason: the delivery log is off (push.deliveryLog.enabled)' };
    const params: Record<string, unknown> = { outcome: 'invalidToken,failed', limit: String(page.limit) };
    if (page.cursor !== null) params.cursor = page.cursor;
    const listed = await listPushDeliveries(this.#deps, consoleCaller(app), String(push.objectId), params);
    return { perDevice: true, byReason: counts.byReason, entries: listed.results.map(entryOf), next: listed.nextCursor, source: 'the delivery log' };
  }

  async deviceHistory(app: AppRuntime, installationId: string, page: FailurePage): Promise<DeviceHistory | null> {
    if (!this.#enabled) return null;
    const params: Record<string, unknown> = { limit: String(page.limit) };
    if (page.cursor !== null) params.cursor = page.cursor;
    const listed = await listInstallationDeliveries(this.#deps, consoleCaller(app), installationId, params);
    return { entries: listed.results.map(entryOf), next: listed.nextCursor };
  }

  async explain(app: AppRuntime, pushId: string, device: string): Promise<DeviceExplanation | null> {
    const typed = device.trim();
    const installation = await this.#find(app, typed);
    // An objectId of an installation removed since (an unregistered token removes it) may still have entries.
    const objectId = installation?.objectId ?? (objectIdPattern.test(typed) ? typed : null);
    if (objectId === null) return this.#records.explain(app, pushId, device);
    let answer: PushExplanation | undefined;
    try {
      const explained = await explainDelivery(this.#deps, consoleCaller(app), pushId, { installation: objectId });
      answer = explained.pushes.find((push) => push.push === pushId) ?? explained.pushes[0];
    } catch (error) {
      if (!(error instanceof HeraldError) || error.code !== ErrorCode.objectNotFound) throw error;
    }
    // No installation and no entry: a token a device push named alone, or nothing at all.
    if (answer === undefined) return this.#records.explain(app, pushId, device);
    const log = answer.deliveries.map(entryOf);
    return {
      installation: installation === null ? null : { objectId: installation.objectId, deviceType: typeof installation.deviceType === 'string' ? installation.deviceType : '', updatedAt: installation.updatedAt },
      checks: answer.rules.map(checkOf),
      verdict: verdictOf(answer, log, this.#enabled),
      log: this.#enabled ? log : null,
    };
  }

  /** The installation typed: its objectId, iOS token or installationId, else an Android registrationId (one holder, or the first). */
  async #find(app: AppRuntime, typed: string): Promise<StoredObject | null> {
    const installations = this.#deps.store.installations;
    const found = await findInstallation(installations, app.config.id, typed);
    if (found !== null || typed === '' || typed.length > 4096) return found;
    return (await installations.findByRegistrationId(app.config.id, typed))[0] ?? null;
  }
}

export function entryOf(event: DeliveryEventJson): DeliveryEntry {
  return {
    installation: event.installation,
    tokenSuffix: event.tokenSuffix,
    push: event.pushId,
    gateway: event.gateway,
    outcome: event.outcome,
    reason: event.reason ?? '',
    attempts: event.attempts,
    at: event.at,
  };
}

/** The names explain gives its rules, as a person reads them. */
const ruleNames: Record<ExplainRule['rule'], string> = {
  where: 'Matches where and channels (or listed in device_ids)',
  platform: 'Platform',
  active: 'Active',
  route: 'Address and gateway',
  expiry: 'Not expired',
  cancelled: 'Not cancelled',
  reqId: 'Not a repeated req_id',
  devCertificateLimit: 'Development certificate limit',
};

function checkOf(rule: ExplainRule): RuleCheck {
  return { rule: ruleNames[rule.rule], passed: rule.pass, detail: rule.why };
}

/** One sentence: what the log says of the device, else the first rule that stopped it, else why nothing is known. */
function verdictOf(answer: PushExplanation, log: DeliveryEntry[], logKept: boolean): string {
  const entry = log[0];
  if (entry !== undefined) {
    const via = `${entry.gateway}${entry.tokenSuffix === null ? '' : ` (token …${entry.tokenSuffix})`}`;
    if (entry.outcome === 'delivered') return `Delivered through ${via} at ${entry.at ?? 'an unknown time'}, after ${entry.attempts} attempt${entry.attempts === 1 ? '' : 's'}.`;
    if (entry.attempts === 0) return `Not sent: ${entry.reason} (the delivery log, ${entry.at ?? 'time unknown'}).`;
    const invalid = entry.outcome === 'invalidToken' ? ': the gateway says the token is no longer valid' : '';
    return `Not delivered: ${entry.reason}${invalid}, answered by ${via} after ${entry.attempts} attempt${entry.attempts === 1 ? '' : 's'} (the delivery log, ${entry.at ?? 'time unknown'}).`;
  }
  const stop = answer.rules.find((rule) => rule.pass === false);
  if (stop !== undefined) return `Not sent: ${stop.why}`;
  if (!logKept) return 'Every rule lets this device be sent to; the delivery log is off, so what the gateway answered is not known.';
  if (answer.status !== 'done' && answer.status !== 'Error') return `Every rule lets this device be sent to; the push is ${answer.status ?? 'gone'} and the delivery log has no entry for this device yet.`;
  return "Every rule lets this device be sent to, and the delivery log has no entry for it: a delivered device is kept only as the app's successes policy says (push.deliveryLog.successes), or its entries passed their retention.";
}
