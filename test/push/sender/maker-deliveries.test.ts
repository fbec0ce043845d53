import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/logger.ts';
import type { InstallationStore } from '../../../src/core/ports/installation-store.ts';
import type { StoredObject } from '../../../src/core/ports/object-store.ts';
import { defaultRetryPolicy } from '../../../src/push/gateways/deliver-with-retry.ts';
import { delivered, type DeliveryOutcome, type MakerName } from '../../../src/push/gateways/delivery.ts';
import { androidRoute } from '../../../src/push/gateways/makers/android-routes.ts';
import type { MakerClient, MakerDelivery } from '../../../src/push/gateways/makers/maker-client.ts';
import type { Maker } from '../../../src/push/gateways/makers/maker.ts';
import type { PushGateways } from '../../../src/push/gateways/push-gateways.ts';
import type { PushSpec } from '../../../src/push/push-spec.ts';
import type { DeliveryFailure } from '../../../src/push/sender/delivery-failure-log.ts';
import { DeliveryTally } from '../../../src/push/sender/delivery-tally.ts';
import { DeviceDeliveries, type SliceContext } from '../../../src/push/sender/device-deliveries.ts';
import { PreparedPushes } from '../../../src/push/sender/prepared-pushes.ts';
import { SliceCounts } from '../../../src/push/sender/slice-counts.ts';
import { ManualClock } from '../../support/manual-clock.ts';

/** A maker client that answers delivered and remembers what it was handed. */
function recordingClient(gateway: MakerName, profile: string, sent: { profile: string; delivery: MakerDelivery }[]): MakerClient {
  const send = (delivery: MakerDelivery): Promise<DeliveryOutcome> => {
    sent.push({ profile, delivery });
    return Promise.resolve(delivered);
  };
  // The deliveries use a client's gateway and send alone.
  return { gateway, send } as unknown as MakerClient;
}

function setUp(profiles: readonly string[]) {
  const sent: { profile: string; delivery: MakerDelivery }[] = [];
  const told: DeliveryFailure[] = [];
  const gateways: Pick<PushGateways, 'apns' | 'fcm' | 'maker'> = {
    apns: () => null,
    fcm: () => null,
    maker: (_app, gateway, profile) => (profiles.includes(profile) ? recordingClient(gateway, profile, sent) : null),
  };
  const deliveries = new DeviceDeliveries({
    gateways,
    installations: {} as InstallationStore,
    retry: defaultRetryPolicy,
    gatewayMetrics: { retried: () => {} },
    failures: { failed: (failure) => void told.push(failure) },
    clock: new ManualClock(),
    logger: silentLogger(),
  });
  return { deliveries, sent, told };
}

function sliceOf(data: Record<string, unknown>, target: PushSpec['target'] = { kind: 'query', where: null, platforms: ['android'] }): SliceContext {
  const spec: PushSpec = { data, target, expiresAt: null, environment: 'prod', topic: null, apnsTeamId: null, flowControl: null, androidChannel: null };
  return { appId: 'app', pushId: 'push', spec, prepared: new PreparedPushes().get('push', spec), counts: new SliceCounts(), tally: new DeliveryTally(), signal: new AbortController().signal };
}

const hms = (fields: Record<string, unknown> = {}): StoredObject => ({ objectId: 'o', createdAt: '', updatedAt: '', deviceType: 'android', vendor: 'HMS', registrationId: 'tok', ...fields });

describe('deliveries to a phone maker', () => {
  it('go through the profile the installation names, _default when it names none', async () => {
    const { deliveries, sent } = setUp(['_default', 'eu']);
    const slice = sliceOf({ alert: 'A' });
    const route = androidRoute('HMS');
    await deliveries.toAndroid(slice, route, hms());
    await deliveries.toAndroid(slice, route, hms({ deviceProfile: '' }));
    await deliveries.toAndroid(slice, route, hms({ deviceProfile: 'eu' }));
    expect(sent.map((entry) => entry.profile)).toEqual(['_default', '_default', 'eu']);
    expect(slice.counts.toCounts()).toMatchObject({ successes: 3, androidSuccesses: 3 });
  });

  it('count NoVendorCredentials for a profile the app lacks and NoRegistrationId without a token, sending nothing', async () => {
    const { deliveries, sent, told } = setUp(['_default']);
    const slice = sliceOf({ alert: 'A' });
    await deliveries.toAndroid(slice, androidRoute('HMS'), hms({ deviceProfile: 'nowhere' }));
    await deliveries.toAndroid(slice, androidRoute('HMS'), hms({ registrationId: '' }));
    expect(sent).toEqual([]);
    expect(slice.counts.toCounts()).toMatchObject({ errors: 2, errorReasons: { NoVendorCredentials: 1, NoRegistrationId: 1 } });
    // The failure log hears of each, with what to set; the metrics get both by reason when the slice ends.
    expect(told).toEqual([
      { appId: 'app', pushId: 'push', gateway: 'hms', outcome: 'not-sent', reason: 'NoVendorCredentials', cause: expect.stringContaining('apps[].push.<maker>.profiles') },
      { appId: 'app', pushId: 'push', gateway: 'hms', outcome: 'not-sent', reason: 'NoRegistrationId', cause: expect.stringContaining('no registrationId') },
    ]);
    const failures: [string, string, string, number][] = [];
    slice.tally.report({ delivery: () => {}, failure: (gateway, outcome, reason, count) => void failures.push([gateway, outcome, reason, count]) });
    expect(failures).toEqual([
      ['hms', 'not-sent', 'NoVendorCredentials', 1],
      ['hms', 'not-sent', 'NoRegistrationId', 1],
    ]);
  });

  it('count SilentNotSupported for a silent push to a maker that cannot pass one through', async () => {
    const { deliveries, sent } = setUp(['_default']);
    const route = androidRoute('HMS');
    if (route.kind !== 'maker') throw new Error('HMS is registered');
    const noSilent: Maker = { ...route.maker, silent: false };
    const slice = sliceOf({ alert: 'A', silent: true });
    await deliveries.toAndroid(slice, { kind: 'maker', maker: noSilent, variant: '' }, hms());
    expect(sent).toEqual([]);
    expect(slice.counts.toCounts()).toMatchObject({ errors: 1, errorReasons: { SilentNotSupported: 1 } });
    await deliveries.toAndroid(slice, route, hms());
    expect(sent).toHaveLength(1);
  });

  it('send a registrationId named by /push/devices through the request\'s profile', async () => {
    const { deliveries, sent } = setUp(['_default', 'eu']);
    const slice = sliceOf({ alert: 'A' }, { kind: 'devices', deviceType: 'android', ids: ['listed'], deviceProfile: 'eu', vendor: 'HMS' });
    await deliveries.toAndroid(slice, androidRoute('HMS'), null, 'listed');
    expect(sent.map((entry) => [entry.profile, entry.delivery.token])).toEqual([['eu', 'listed']]);
  });
});

describe('androidRoute', () => {
  it('routes the hosted service\'s vendor values exactly', () => {
    expect(androidRoute(undefined)).toEqual({ kind: 'fcm' });
    expect(androidRoute('fcm')).toEqual({ kind: 'fcm' });
    for (const vendor of ['HMS', 'hms', 'huawei']) expect(androidRoute(vendor)).toMatchObject({ kind: 'maker', maker: { gateway: 'hms' }, variant: '' });
    expect(androidRoute('lc')).toEqual({ kind: 'not-sent', reason: 'NoRegistrationId' });
    expect(androidRoute('')).toEqual({ kind: 'not-sent', reason: 'NoRegistrationId' });
    for (const vendor of ['Hms', 'nokia', 3, {}]) expect(androidRoute(vendor)).toEqual({ kind: 'not-sent', reason: 'UnsupportedVendor' });
  });
});
