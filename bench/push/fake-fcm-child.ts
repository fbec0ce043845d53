import { createPublicKey } from 'node:crypto';
import { FakeFcm } from '../../test/support/gateways/fake-fcm.ts';
import type { FakeFcmChildCommand, FakeFcmChildOptions, FakeFcmCounts } from './fake-fcm-process.ts';
import { serveChildRpc } from '../../test/support/child-rpc.ts';

/**
 * The child side of `FakeFcmProcess`: the test suite's fake FCM in count mode,
 * driven by IPC messages. It exits when the parent goes away.
 */
let fake: FakeFcm | undefined;

serveChildRpc(run);

async function run(command: FakeFcmChildCommand): Promise<unknown> {
  switch (command.type) {
    case 'start':
      return start(command.options);
    case 'counts':
      return counts();
    case 'setDefaultAnswer':
      if (fake === undefined) throw new Error('the fake FCM is not started');
      fake.setDefaultAnswer(command.answer);
      return null;
    case 'reset':
      fake?.log.reset();
      fake?.resetStreamPeaks();
      return null;
    case 'close':
      await fake?.close();
      fake = undefined;
      setImmediate(() => process.exit(0));
      return null;
  }
}

async function start(options: FakeFcmChildOptions): Promise<number> {
  if (fake !== undefined) throw new Error('the fake FCM is already started');
  fake = await FakeFcm.start({
    cert: options.cert,
    key: options.key,
    accounts: options.accounts.map(({ publicKeyPem, ...account }) => ({ ...account, publicKey: createPublicKey(publicKeyPem) })),
    record: 'count',
  });
  return Number(new URL(fake.origin).port);
}

function counts(): FakeFcmCounts {
  if (fake === undefined) throw new Error('the fake FCM is not started');
  const { log } = fake;
  const { peakStreams, peakStreamsPerSession } = fake.streamStats;
  const cpu = process.cpuUsage();
  return {
    requests: log.requestCount,
    deliveries: log.deliveryCount,
    distinctTokens: log.distinctTokens,
    duplicates: log.duplicates,
    tokenRequests: fake.tokenRequests,
    peakStreams,
    peakStreamsPerSession,
    cpu: { user: cpu.user, system: cpu.system },
  };
}
