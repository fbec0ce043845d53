import { afterEach, describe, expect, it } from 'vitest';
import { DeliveryFailureLog } from '../../../src/push/sender/delivery-failure-log.ts';
import type { DeliveryFailure } from '../../../src/push/sender/delivery-failure-log.ts';
import { eventually } from '../../support/eventually.ts';
import { ManualClock } from '../../support/manual-clock.ts';
import { memoryLogger, type LogLine, type MemoryLogger } from '../../support/memory-logger.ts';

const refused = 'connect ECONNREFUSED 10.0.0.1:443';

function failure(fields: Partial<DeliveryFailure> = {}): DeliveryFailure {
  return { appId: 'shop', pushId: 'p1', gateway: 'apns', outcome: 'failed', reason: 'ConnectFailed', cause: refused, ...fields };
}

const warnings = (log: MemoryLogger): LogLine[] => log.lines.filter((line) => line.level === 40);

let logs: DeliveryFailureLog[] = [];
afterEach(() => {
  for (const log of logs) log.close();
  logs = [];
});

function setUp(sweepMs = 60_000) {
  const clock = new ManualClock();
  const log = memoryLogger('info');
  const failures = new DeliveryFailureLog({ logger: log.logger, clock, sweepMs });
  logs.push(failures);
  return { clock, log, failures };
}

describe('DeliveryFailureLog', () => {
  it('writes the first failure of an app, gateway and reason at once with its cause, and counts the rest of the minute', () => {
    const { log, failures } = setUp();
    for (let n = 0; n < 500; n += 1) failures.failed(failure());
    expect(warnings(log)).toEqual([
      expect.objectContaining({ app: 'shop', push: 'p1', gateway: 'apns', outcome: 'failed', reason: 'ConnectFailed', cause: refused }),
    ]);
    expect(warnings(log)[0]?.msg).toMatch(/^delivery failed: ConnectFailed; more of this app, gateway and reason are counted, one line a minute$/);
  });

  it('gives each app, gateway and reason a first line of its own', () => {
    const { log, failures } = setUp();
    failures.failed(failure());
    failures.failed(failure({ appId: 'other' }));
    failures.failed(failure({ gateway: 'fcm' }));
    failures.failed(failure({ reason: 'ServerCertificateRejected', cause: 'DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate' }));
    failures.failed(failure({ gateway: 'fcm', outcome: 'not-sent', reason: 'NoFcmCredentials', cause: undefined }));
    failures.failed(failure());
    expect(warnings(log).map((line) => [line.app, line.gateway, line.reason].join(' '))).toEqual([
      'shop apns ConnectFailed',
      'other apns ConnectFailed',
      'shop fcm ConnectFailed',
      'shop apns ServerCertificateRejected',
      'shop fcm NoFcmCredentials',
    ]);
    expect(warnings(log)[4]?.msg).toMatch(/^delivery not sent: NoFcmCredentials/);
  });

  it('writes the count once the minute is over, with the latest cause and push, when the next failure comes', () => {
    const { clock, log, failures } = setUp();
    failures.failed(failure());
    for (let n = 0; n < 41; n += 1) failures.failed(failure({ pushId: 'p2' }));
    clock.advance(59_999);
    failures.failed(failure({ pushId: 'p3', cause: 'getaddrinfo ENOTFOUND api.push.apple.com' }));
    expect(warnings(log)).toHaveLength(1);
    clock.advance(1);
    failures.failed(failure({ pushId: 'p4', cause: 'getaddrinfo ENOTFOUND api.push.apple.com' }));
    expect(warnings(log)).toHaveLength(2);
    expect(warnings(log)[1]).toMatchObject({ app: 'shop', gateway: 'apns', reason: 'ConnectFailed', count: 43, sinceMs: 60_000, push: 'p4', cause: 'getaddrinfo ENOTFOUND api.push.apple.com' });
    expect(warnings(log)[1]?.msg).toMatch(/^43 more deliveries of this app and gateway ended ConnectFailed since the last line/);
  });

  it('writes the count when the minute is over even if no further failure comes', async () => {
    const { clock, log, failures } = setUp(10);
    failures.failed(failure());
    failures.failed(failure());
    failures.failed(failure());
    clock.advance(60_000);
    await eventually('the count to be written', () => warnings(log), (lines) => lines.length === 2);
    expect(warnings(log)[1]).toMatchObject({ reason: 'ConnectFailed', count: 2, cause: refused });
  });

  it('writes the next failure of a kind that stayed quiet a whole minute at once again', () => {
    const { clock, log, failures } = setUp();
    failures.failed(failure());
    clock.advance(60_000);
    failures.failed(failure({ pushId: 'p9' }));
    expect(warnings(log)).toHaveLength(2);
    expect(warnings(log)[1]).toMatchObject({ push: 'p9', cause: refused });
    expect(warnings(log)[1]?.count).toBeUndefined();
  });

  it('writes the counts it still holds when it closes', () => {
    const { log, failures } = setUp();
    failures.failed(failure());
    failures.failed(failure());
    failures.failed(failure({ gateway: 'fcm' }));
    failures.close();
    expect(warnings(log).map((line) => [line.gateway, String(line.count)].join(' '))).toEqual(['apns undefined', 'fcm undefined', 'apns 1']);
    failures.close();
    expect(warnings(log)).toHaveLength(3);
  });
});
