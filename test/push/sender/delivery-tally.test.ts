import { describe, expect, it } from 'vitest';
import { DeliveryTally } from '../../../src/push/sender/delivery-tally.ts';

/** Metrics that keep what a tally reports. */
function recording() {
  const deliveries: [string, string, number][] = [];
  const failures: [string, string, string, number][] = [];
  return {
    deliveries,
    failures,
    metrics: {
      delivery: (gateway: string, outcome: string, count: number) => void deliveries.push([gateway, outcome, count]),
      failure: (gateway: string, outcome: string, reason: string, count: number) => void failures.push([gateway, outcome, reason, count]),
    },
  };
}

describe('DeliveryTally', () => {
  it('reports each gateway and outcome once with its count, then starts again from zero', () => {
    const tally = new DeliveryTally();
    const { deliveries, metrics } = recording();
    tally.add('apns', 'delivered');
    tally.add('apns', 'delivered');
    tally.add('apns', 'invalid-token');
    tally.add('fcm', 'not-sent');
    tally.report(metrics);
    expect(deliveries).toEqual([
      ['apns', 'delivered', 2],
      ['apns', 'invalid-token', 1],
      ['fcm', 'not-sent', 1],
    ]);
    deliveries.length = 0;
    tally.report(metrics);
    expect(deliveries).toEqual([]);
    tally.add('fcm', 'failed');
    tally.report(metrics);
    expect(deliveries).toEqual([['fcm', 'failed', 1]]);
  });

  it('reports the devices not delivered by gateway, outcome and reason, and counts them among the outcomes', () => {
    const tally = new DeliveryTally();
    const { deliveries, failures, metrics } = recording();
    tally.add('apns', 'delivered');
    tally.fail('apns', 'failed', 'ConnectFailed');
    tally.fail('apns', 'failed', 'ConnectFailed');
    tally.fail('apns', 'failed', 'ServerCertificateRejected');
    tally.fail('apns', 'invalid-token', 'BadDeviceToken');
    tally.fail('fcm', 'not-sent', 'NoFcmCredentials');
    tally.report(metrics);
    expect(deliveries).toEqual([
      ['apns', 'delivered', 1],
      ['apns', 'invalid-token', 1],
      ['apns', 'failed', 3],
      ['fcm', 'not-sent', 1],
    ]);
    expect(failures).toEqual([
      ['apns', 'failed', 'ConnectFailed', 2],
      ['apns', 'failed', 'ServerCertificateRejected', 1],
      ['apns', 'invalid-token', 'BadDeviceToken', 1],
      ['fcm', 'not-sent', 'NoFcmCredentials', 1],
    ]);
    failures.length = 0;
    tally.report(metrics);
    expect(failures).toEqual([]);
  });
});
