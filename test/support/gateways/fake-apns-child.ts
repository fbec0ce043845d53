import { createPublicKey } from 'node:crypto';
import { FakeApns } from './fake-apns.ts';
import { serveChildRpc } from '../child-rpc.ts';
import type { FakeApnsCommand, FakeApnsCounts } from './fake-apns-protocol.ts';

/**
 * The child side of `FakeApnsProcess`: one fake APNs driven by IPC messages.
 * It exits when the parent goes away, so a crashed benchmark leaves nothing behind.
 */
let fake: FakeApns | undefined;

serveChildRpc(run);

async function run(command: FakeApnsCommand): Promise<unknown> {
  if (command.type === 'start') {
    if (fake !== undefined) throw new Error('the fake APNs is already started');
    const { keys, ...options } = command.options;
    const serverKeys = (keys ?? []).map(({ publicKeyPem, ...key }) => ({ ...key, publicKey: createPublicKey(publicKeyPem) }));
    fake = await FakeApns.start({ ...options, keys: serverKeys });
    return fake.port;
  }
  const running = fake;
  if (running === undefined) throw new Error('the fake APNs is not started');
  switch (command.type) {
    case 'counts':
      return counts(running);
    case 'countOf':
      return running.log.countOf(command.token);
    case 'respondTo':
      running.respondTo(command.token, command.answers);
      return null;
    case 'setDefaultAnswer':
      running.setDefaultAnswer(command.answer);
      return null;
    case 'goaway':
      running.goaway(command.options);
      return null;
    case 'goawayEverySession':
      running.goawayEverySession(command.on);
      return null;
    case 'reset':
      running.reset();
      return null;
    case 'close':
      await running.close();
      fake = undefined;
      setImmediate(() => process.exit(0));
      return null;
  }
}

function counts(running: FakeApns): FakeApnsCounts {
  const { log } = running;
  const cpu = process.cpuUsage();
  return {
    requests: log.requestCount,
    deliveries: log.deliveryCount,
    distinctTokens: log.distinctTokens,
    duplicates: log.duplicates,
    stats: running.stats,
    cpu: { user: cpu.user, system: cpu.system },
  };
}
