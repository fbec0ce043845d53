import type { AppRuntime } from '../../accounts/account-deps.ts';
import type { Store } from '../../core/ports/object-store.ts';
import type { PushDoc } from '../../core/ports/push-store.ts';
import type { StoredObject } from '../../core/ports/object-store.ts';
import { withTokenCaseInWhere } from '../../devices/device-token-case.ts';
import { withoutStrayUser } from '../../devices/user-pointers.ts';
import { appGatewaysOf } from '../../push/gateways/app-gateways.ts';
import { androidRoute } from '../../push/gateways/makers/android-routes.ts';
import { isAccepted, specOfRecord } from '../../push/records/push-record.ts';
import { normalIosToken } from '../../push/requests/device-target.ts';
import type { PushSpec } from '../../push/push-spec.ts';
import { matches } from '../../query/match.ts';
import { parseWhere } from '../../query/parse-query.ts';
import type { DeliveryInsight, DeviceExplanation, DeviceHistory, FailurePage, FailureReport, RuleCheck } from './delivery-insight.ts';
import { findInstallation } from './find-installation.ts';

const dayMs = 24 * 60 * 60 * 1000;

/**
 * Failures and explanations from the push record alone: its counters and
 * reason histogram, the installation as it is now, and the app's
 * configured gateways. It can say which rule keeps a device out of a
 * push's audience, and what the push's failures were by reason; it cannot
 * say which failure was this device. `LogDeliveryInsight` falls back on it
 * where the delivery log is off or knows nothing of what was typed (an iOS
 * token a device push named alone).
 */
export class RecordDeliveryInsight implements DeliveryInsight {
  readonly #store: Pick<Store, 'pushes' | 'installations'>;
  readonly #idleMs: number;

  constructor(deps: { store: Pick<Store, 'pushes' | 'installations'> }, settings: { idleInstallationDays: number }) {
    this.#store = deps.store;
    this.#idleMs = settings.idleInstallationDays * dayMs;
  }

  failures(_app: AppRuntime, push: Readonly<Record<string, unknown>>, _page: FailurePage): Promise<FailureReport> {
    const reasons = (push.errorReasons ?? {}) as Record<string, number>;
    const byReason = Object.entries(reasons)
      .map(([reason, count]) => ({ reason, count: Number(count) }))
      .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
    return Promise.resolve({ perDevice: false, byReason, entries: [], next: null, source: "the push record's counts by reason" });
  }

  /** Not known from the record: null. */
  deviceHistory(): Promise<DeviceHistory | null> {
    return Promise.resolve(null);
  }

  async explain(app: AppRuntime, pushId: string, device: string): Promise<DeviceExplanation | null> {
    const appId = app.config.id;
    const record = await this.#store.pushes.get(appId, pushId);
    if (record === null || !isAccepted(record)) return null;
    const installation = await findInstallation(this.#store.installations, appId, device);
    const checks = this.#checks(app, record, specOfRecord(record), installation, device.trim());
    const stop = checks.find((check) => check.passed === false);
    return {
      installation: installation === null ? null : { objectId: installation.objectId, deviceType: typeof installation.deviceType === 'string' ? installation.deviceType : '', updatedAt: installation.updatedAt },
      checks,
      verdict: stop === undefined ? outcomeSentence(record) : `Not sent: ${stop.detail}`,
      log: null,
    };
  }

  #checks(app: AppRuntime, record: PushDoc, spec: PushSpec | null, installation: StoredObject | null, typed: string): RuleCheck[] {
    const checks: RuleCheck[] = [];
    if (spec === null) return [{ rule: 'The push', passed: false, detail: 'the push record has no sending details' }];
    checks.push(pushCheck(record, spec));
    if (spec.target.kind === 'devices') {
      const { target } = spec;
      const names = installation === null ? [typed] : [typed, installation.deviceToken, installation.installationId, installation.registrationId];
      const listed = names.some((name) => typeof name === 'string' && target.ids.includes(target.deviceType === 'ios' ? normalIosToken(name) : name));
      checks.push({ rule: 'Listed in device_ids', passed: listed, detail: listed ? `the push lists this ${target.deviceType} device` : `the push lists ${target.ids.length} ${target.deviceType} devices, not this one` });
      if (installation === null) {
        checks.push({ rule: 'Installation', passed: listed ? null : false, detail: listed ? 'no installation holds this id: a listed iOS token is sent to as it is; an Android id must belong to an installation' : 'no installation holds this id' });
        return checks;
      }
    } else {
      if (installation === null) {
        checks.push({ rule: 'Installation', passed: false, detail: 'no installation of this app has this objectId, device token or installationId' });
        return checks;
      }
      const type = installation.deviceType;
      const platform = type === 'ios' || type === 'android';
      checks.push({ rule: 'Platform', passed: platform && spec.target.platforms.includes(type), detail: platform ? `${type}; the push reaches ${spec.target.platforms.join(' and ') || 'no platform'}` : `deviceType ${JSON.stringify(type)} is neither ios nor android` });
      const where = withTokenCaseInWhere(parseWhere(spec.target.where ?? undefined));
      const matched = matches(where, withoutStrayUser(installation));
      checks.push({ rule: 'Matches where and channels', passed: matched, detail: matched ? `matches ${JSON.stringify(spec.target.where ?? {})}` : `does not match ${JSON.stringify(spec.target.where ?? {})} (channels: ${JSON.stringify(installation.channels ?? [])})` });
      const activeSince = Date.parse(record.createdAt) - this.#idleMs;
      const active = Date.parse(installation.updatedAt) >= activeSince;
      checks.push({ rule: 'Active', passed: active, detail: active ? `saved ${installation.updatedAt}, within the ${Math.round(this.#idleMs / dayMs)}-day window` : `last saved ${installation.updatedAt}, before the ${Math.round(this.#idleMs / dayMs)}-day window: idle installations are not targeted` });
    }
    checks.push(addressCheck(app, spec, installation));
    if (installation !== null && installation.updatedAt > record.createdAt) {
      checks.push({ rule: 'Saved since', passed: null, detail: `the installation was saved at ${installation.updatedAt}, after the push was sent: these checks judge it as it is now` });
    }
    return checks;
  }
}

function pushCheck(record: PushDoc, spec: PushSpec): RuleCheck {
  if (record.status === 'scheduled') return { rule: 'The push', passed: null, detail: `scheduled for ${String(record.push_time)}: not sent yet` };
  if (spec.expiresAt !== null && spec.expiresAt <= Date.parse(record.createdAt)) return { rule: 'The push', passed: false, detail: 'it had expired when it was sent' };
  if (typeof record.errorMessage === 'string') return { rule: 'The push', passed: record.status !== 'Error', detail: record.errorMessage };
  return { rule: 'The push', passed: true, detail: `${String(record.status)}, ${spec.environment}` };
}

/** Whether the device has an address and the app a gateway for it, as the sender decides. */
function addressCheck(app: AppRuntime, spec: PushSpec, installation: StoredObject | null): RuleCheck {
  const gateways = appGatewaysOf(app.config.push);
  const environment = spec.environment === 'prod' ? 'production' : 'development';
  const type = spec.target.kind === 'devices' ? spec.target.deviceType : installation?.deviceType;
  if (type === 'ios') {
    if (spec.target.kind !== 'devices' && typeof installation?.deviceToken !== 'string') return { rule: 'Address and gateway', passed: false, detail: 'NoDeviceToken: the iOS installation has no deviceToken' };
    if (!gateways.apns.has(environment)) return { rule: 'Address and gateway', passed: false, detail: `NoApnsCredentials: the app has no APNs credentials for ${environment}` };
    return { rule: 'Address and gateway', passed: true, detail: `APNs ${environment}` };
  }
  const vendor = spec.target.kind === 'devices' && typeof spec.target.vendor === 'string' ? spec.target.vendor : installation?.vendor;
  const route = androidRoute(vendor);
  if (route.kind === 'not-sent') return { rule: 'Address and gateway', passed: false, detail: `${route.reason}: vendor ${JSON.stringify(vendor ?? null)} has no push service Herald sends through` };
  if (typeof installation?.registrationId !== 'string' && !(spec.target.kind === 'devices' && typeof spec.target.vendor === 'string')) {
    return { rule: 'Address and gateway', passed: false, detail: 'NoRegistrationId: the Android installation has no registrationId' };
  }
  if (route.kind === 'fcm') {
    return gateways.fcm ? { rule: 'Address and gateway', passed: true, detail: 'FCM' } : { rule: 'Address and gateway', passed: false, detail: 'NoFcmCredentials: the app has no FCM service account' };
  }
  const maker = route.maker.gateway;
  return gateways.makers.has(maker)
    ? { rule: 'Address and gateway', passed: true, detail: `${maker} (vendor ${String(vendor)})` }
    : { rule: 'Address and gateway', passed: false, detail: `NoVendorCredentials: the app configures no ${maker} profile` };
}

function outcomeSentence(record: PushDoc): string {
  const reasons = Object.entries((record.errorReasons ?? {}) as Record<string, number>)
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ');
  const counts = `${Number(record.successes ?? 0)} delivered, ${Number(record.errors ?? 0)} failed${reasons === '' ? '' : ` (${reasons})`}, ${Number(record.invalidTokens ?? 0)} invalid tokens`;
  return `Every rule lets this device be sent to. The push counts ${counts} of ${Number(record.devices ?? 0)} devices; the delivery log has no entry of this device.`;
}
