import { describe, expect, it } from 'vitest';
import { DeliveryTally } from '../../../src/push/sender/delivery-tally.ts';

describe('DeliveryTally', () => {
  it('reports each gateway and outcome once with its count, then starts again from zero', () => {
    const tally = new DeliveryTally();
    tally.add('apns', 'delivered');
    tally.add('apns', 'delivered');
    tally.add('apns', 'invalid-token');
    tally.add('fcm', 'not-sent');
    const reported: [string, string, number][] = [];
    const metrics = { delivery: (gateway: string, outcome: string, count: number) => void reported.push([gateway, outcome, count]) };
    tally.report(metrics);
    expect(reported).toEqual([
      ['apns', 'delivered', 2],
      ['apns', 'invalid-token', 1],
      ['fcm', 'not-sent', 1],
    ]);
    reported.length = 0;
    tally.report(metrics);
    expect(reported).toEqual([]);
    tally.add('fcm', 'failed');
    tally.report(metrics);
    expect(reported).toEqual([['fcm', 'failed', 1]]);
  });
});
