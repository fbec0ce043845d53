import type { Caller } from '../../accounts/account-deps.ts';
import { isoTime } from '../../core/clock.ts';
import { loggedOutcomes } from '../../core/ports/delivery-log-store.ts';
import type { StoredObject } from '../../core/ports/object-store.ts';
import { ErrorCode, fail } from '../../core/errors.ts';
import { androidDeviceRoute, iosDeviceRoute, notSentCauses, type DeviceRoute, type RoutedPush } from '../audience/device-route.ts';
import { matchesWhere, pushPlatform, savedSince } from '../audience/target-platform.ts';
import { devPushDeviceLimit, devPushLimitMessage } from '../fanout/dev-push-limit.ts';
import type { DeliveryReason } from '../gateways/delivery-reasons.ts';
import { androidRoute } from '../gateways/makers/android-routes.ts';
import { deliveryEventJson, tokenSuffixOf, type DeliveryEvent, type DeliveryEventJson } from '../outcomes/delivery-event.ts';
import type { PushSpec } from '../push-spec.ts';
import type { Condition } from '../../query/query.ts';
import { RecordField, specOfRecord } from '../records/push-record.ts';
import { preparePush } from '../sender/prepared-pushes.ts';
import { configuredGateways, type ConfiguredApns } from './configured-gateways.ts';
import type { DeliveryLogDeps } from './delivery-log-deps.ts';
import { logHorizon, scanInstallation } from './installation-deliveries.ts';
import { namedPushes, type NamedPush } from './named-pushes.ts';
import { requireMaster } from './push-deliveries.ts';

/** The rules of a push's audience and sending, in the order explain answers them. */
export const explainRules = ['where', 'platform', 'active', 'route', 'expiry', 'cancelled', 'reqId', 'devCertificateLimit'] as const;

export type ExplainRuleName = (typeof explainRules)[number];

/** One rule for one device: passed, failed, or not known (null: what it needs is gone), and why in a sentence. */
export interface ExplainRule {
  rule: ExplainRuleName;
  pass: boolean | null;
  why: string;
  /** The documented reason the sender records for a device that fails it (`route`, `expiry`). */
  reason?: DeliveryReason;
}

export interface PushExplanation {
  /** The push's objectId. */
  push: string;
  notificationId: string | null;
  /** The record's status; null when the record is gone. */
  status: string | null;
  /** Whether the device was among the push's targets by its audience rules (where, platform, active); null when not known. */
  targeted: boolean | null;
  rules: ExplainRule[];
  /** The delivery log's entries of this device for this push (one, or none). */
  deliveries: DeliveryEventJson[];
}

export interface Explanation {
  installation: string;
  /** Whether an installation has this objectId now. */
  found: boolean;
  pushes: PushExplanation[];
}

const objectIdPattern = /^[A-Za-z0-9]{1,64}$/;
const dayMs = 86_400_000;

/**
 * `GET /1.1/notifications/<id>/explain?installation=<objectId>`: for one
 * installation and each push `id` names, every rule of the push's audience
 * and sending in order, each passed or failed with why, beside what the
 * delivery log recorded for it. The rules are the very functions the
 * fan-out and the senders apply (`matchesWhere`, `pushPlatform`,
 * `savedSince`, `iosDeviceRoute`, `androidDeviceRoute` over the app's
 * configured gateways), evaluated for this one device, against the
 * installation as it is now. Nothing is kept of devices a push did not
 * target: explain works them out when asked.
 */
export async function explainDelivery(deps: DeliveryLogDeps, caller: Caller, id: string, params: Readonly<Record<string, unknown>>): Promise<Explanation> {
  requireMaster(caller);
  const objectId = params.installation;
  if (objectId === undefined || objectId === '') fail(ErrorCode.missingRequiredKey, 'installation is required: the objectId of the installation to explain.');
  if (typeof objectId !== 'string') fail(ErrorCode.internal, 'installation must be given once, as text');
  if (!objectIdPattern.test(objectId)) fail(ErrorCode.objectNotFound, 'Could not find the installation.');
  const appId = caller.app.config.id;
  const pushes = await namedPushes(deps, appId, id);
  const installation = await deps.store.installations.get(appId, objectId);
  const explanations: PushExplanation[] = [];
  for (const push of pushes) {
    const since = push.record === null ? logHorizon(deps, caller) : Date.parse(push.record.createdAt) - dayMs;
    const found = await scanInstallation(deps, appId, objectId, { outcomes: loggedOutcomes, reason: null, pushId: push.objectId, since, before: null, limit: 10 });
    explanations.push(explainPush(deps, caller, push, installation, found.events));
  }
  if (installation === null && explanations.every((explanation) => explanation.deliveries.length === 0)) fail(ErrorCode.objectNotFound, 'Could not find the installation.');
  return { installation: objectId, found: installation !== null, pushes: explanations };
}

function explainPush(deps: DeliveryLogDeps, caller: Caller, push: NamedPush, installation: StoredObject | null, entries: DeliveryEvent[]): PushExplanation {
  const { record } = push;
  const spec = record === null ? null : specOfRecord(record);
  const rules: ExplainRule[] = [];
  const unknown = (rule: ExplainRuleName, why: string): ExplainRule => ({ rule, pass: null, why });
  if (record === null || spec === null) {
    const gone = record === null ? 'not known: the push record is gone' : 'not known: the push record has no sending details';
    for (const rule of explainRules) rules.push(rule === 'cancelled' && record === null ? cancelledRule(null) : unknown(rule, gone));
  } else {
    const sentAt = Date.parse(typeof record.push_time === 'string' ? record.push_time : record.createdAt);
    const prepared = preparePush(spec);
    const routed: RoutedPush = { appId: caller.app.config.id, spec, prepared };
    if (installation === null) {
      const gone = 'not known: no installation has this objectId now (a token the gateway reported unregistered removes its installation: see the entries; so does the idle sweep after the idle time)';
      for (const rule of ['where', 'platform', 'active', 'route'] as const) rules.push(unknown(rule, gone));
    } else {
      rules.push(whereRule(spec, prepared.where, installation), platformRule(spec, installation), activeRule(deps, installation, sentAt), routeRule(caller, routed, installation));
    }
    rules.push(expiryRule(spec, record.errorMessage, entries), cancelledRule(record.objectId), reqIdRule(record[RecordField.reqId]), devLimitRule(spec, record.errorMessage));
  }
  const audience = rules.filter((rule) => rule.rule === 'where' || rule.rule === 'platform' || rule.rule === 'active');
  return {
    push: push.objectId,
    notificationId: typeof record?.notificationId === 'string' ? record.notificationId : null,
    status: typeof record?.status === 'string' ? record.status : null,
    targeted: audience.some((rule) => rule.pass === null) ? null : audience.every((rule) => rule.pass === true),
    rules,
    deliveries: entries.map(deliveryEventJson),
  };
}

function whereRule(spec: PushSpec, where: Condition | null, installation: StoredObject): ExplainRule {
  const { target } = spec;
  if (target.kind === 'query') {
    const given = target.where === null ? 'none (every installation)' : cut(JSON.stringify(target.where));
    return matchesWhere(installation, where)
      ? { rule: 'where', pass: true, why: `matches the push's where (channels merged in): ${given}` }
      : { rule: 'where', pass: false, why: `does not match the push's where (channels merged in): ${given}` };
  }
  const { field, value } = listedBy(target, installation);
  const listed = typeof value === 'string' && target.ids.some((listedId) => (field === 'deviceToken' ? listedId.toLowerCase() === value.toLowerCase() : listedId === value));
  return listed
    ? { rule: 'where', pass: true, why: `listed in the push's device_ids by its ${field}` }
    : { rule: 'where', pass: false, why: `its ${field} ${describe(value)} is not among the push's ${target.ids.length} device_ids` };
}

/** The field a device push names installations by: iOS tokens, Android installationIds, or a vendor's registrationIds. */
function listedBy(target: Extract<PushSpec['target'], { kind: 'devices' }>, installation: StoredObject): { field: string; value: unknown } {
  if (target.deviceType === 'ios') return { field: 'deviceToken', value: installation.deviceToken };
  if (typeof target.vendor === 'string') return { field: 'registrationId', value: installation.registrationId };
  return { field: 'installationId', value: installation.installationId };
}

function platformRule(spec: PushSpec, installation: StoredObject): ExplainRule {
  const platform = pushPlatform(installation);
  if (platform === null) return { rule: 'platform', pass: false, why: `its deviceType is ${describe(installation.deviceType)}: only ios and android installations are pushed to` };
  if (spec.target.kind === 'devices' && spec.target.deviceType !== platform) return { rule: 'platform', pass: false, why: `an ${platform} installation; the push's device_type is ${spec.target.deviceType}` };
  return { rule: 'platform', pass: true, why: `an ${platform} installation` };
}

function activeRule(deps: DeliveryLogDeps, installation: StoredObject, sentAt: number): ExplainRule {
  const days = deps.settings.idleInstallationDays;
  const activeSince = sentAt - days * dayMs;
  const saved = installation.updatedAt;
  const since = Date.parse(saved) > sentAt ? ' (saved again since the push: the rules read the installation as it is now)' : '';
  return savedSince(installation, activeSince)
    ? { rule: 'active', pass: true, why: `last saved ${saved}, within the ${days} days before the push went out (${isoTime(sentAt)})${since}` }
    : { rule: 'active', pass: false, why: `last saved ${saved}, more than ${days} days before the push went out (${isoTime(sentAt)}): idle installations are neither sent to nor counted` };
}

function routeRule(caller: Caller, routed: RoutedPush, installation: StoredObject): ExplainRule {
  const gateways = configuredGateways(caller.app.config.push);
  const { target } = routed.spec;
  const route: DeviceRoute<ConfiguredApns, object, object> =
    pushPlatform(installation) === 'ios'
      ? iosDeviceRoute(gateways, routed, installation.deviceToken, installation)
      : target.kind === 'devices' && typeof target.vendor === 'string'
        ? androidDeviceRoute(gateways, routed, androidRoute(target.vendor), installation, typeof installation.registrationId === 'string' ? installation.registrationId : undefined)
        : androidDeviceRoute(gateways, routed, androidRoute(installation.vendor), installation);
  switch (route.kind) {
    case 'apns':
      return { rule: 'route', pass: true, why: `to APNs (${routed.spec.environment === 'prod' ? 'production' : 'sandbox'}) with ${route.client.credential}, topic ${route.topic}, token …${tokenSuffixOf(route.token)}` };
    case 'fcm':
      return { rule: 'route', pass: true, why: `to FCM as registrationId …${tokenSuffixOf(route.token)}` };
    case 'maker':
      return { rule: 'route', pass: true, why: `to ${route.maker.gateway} (vendor ${describe(installation.vendor)}) as registrationId …${tokenSuffixOf(route.token)}` };
    case 'not-sent':
      return { rule: 'route', pass: false, reason: route.reason, why: `${route.reason}: ${notSentCauses[route.reason] ?? 'not sent'}` };
  }
}

function expiryRule(spec: PushSpec, errorMessage: unknown, entries: readonly DeliveryEvent[]): ExplainRule {
  if (spec.expiresAt === null) return { rule: 'expiry', pass: true, why: 'the push does not expire' };
  const at = isoTime(spec.expiresAt);
  if (errorMessage === 'The push expired before it was sent.') return { rule: 'expiry', pass: false, reason: 'Expired', why: `the push expired at ${at}, before the fan-out read it: nothing was sent` };
  if (entries.some((entry) => entry.reason === 'Expired')) return { rule: 'expiry', pass: false, reason: 'Expired', why: `the push expired at ${at}, before this device's turn` };
  return { rule: 'expiry', pass: true, why: `the push expires at ${at}${entries.length > 0 ? "; this device's turn came before" : ''}` };
}

function cancelledRule(objectId: string | null): ExplainRule {
  return objectId === null
    ? { rule: 'cancelled', pass: false, why: "the push's record is gone: it was cancelled (DELETE /1.1/notifications/<id>) or passed its retention; what was sent before is in the entries" }
    : { rule: 'cancelled', pass: true, why: "the push's record is there: it was not cancelled" };
}

function reqIdRule(reqId: unknown): ExplainRule {
  return typeof reqId === 'string'
    ? { rule: 'reqId', pass: true, why: `sent as its own push; a request repeating its req_id ${reqId} within 5 minutes was answered with this push and sent nothing` }
    : { rule: 'reqId', pass: true, why: 'the request gave no req_id: nothing was deduplicated' };
}

function devLimitRule(spec: PushSpec, errorMessage: unknown): ExplainRule {
  if (spec.environment !== 'dev') return { rule: 'devCertificateLimit', pass: true, why: 'a production push: the development-certificate limit does not apply' };
  if (errorMessage === devPushLimitMessage) {
    return { rule: 'devCertificateLimit', pass: false, why: `${devPushLimitMessage}: the development push matched more than ${devPushDeviceLimit.toLocaleString('en-US')} iOS devices and was rejected whole` };
  }
  return { rule: 'devCertificateLimit', pass: true, why: `a development push within the ${devPushDeviceLimit.toLocaleString('en-US')} iOS devices it may reach` };
}

function describe(value: unknown): string {
  return value === undefined ? 'not set' : cut(JSON.stringify(value));
}

function cut(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
