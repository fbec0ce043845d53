import { FakeHms } from '../../test/support/gateways/fake-hms.ts';
import { FakeHonor } from '../../test/support/gateways/fake-honor.ts';
import { FakeMeizu } from '../../test/support/gateways/fake-meizu.ts';
import { FakeOppo } from '../../test/support/gateways/fake-oppo.ts';
import { FakeVivo } from '../../test/support/gateways/fake-vivo.ts';
import { FakeXiaomi } from '../../test/support/gateways/fake-xiaomi.ts';
import { hmsApps, honorApps, meizuApps, oppoApps, vivoApps, xiaomiApps } from '../../test/support/gateways/gateway-fixtures.ts';
import type { DeliveryLog } from '../../test/support/gateways/delivery-log.ts';
import type { FakeMakersChildCommand, FakeMakersCounts, MakerCounts, MakerEndpoints, MakerName } from './fake-makers-process.ts';
import { serveChildRpc } from '../../test/support/child-rpc.ts';

/**
 * The child side of `FakeMakersProcess`: the test suite's six phone-maker
 * fakes in count mode, with the push tests' apps, driven by IPC messages.
 * It exits when the parent goes away.
 */
interface Fakes {
  hms: FakeHms;
  honor: FakeHonor;
  xiaomi: FakeXiaomi;
  oppo: FakeOppo;
  vivo: FakeVivo;
  meizu: FakeMeizu;
}

let fakes: Fakes | undefined;

serveChildRpc(run);

async function run(command: FakeMakersChildCommand): Promise<unknown> {
  switch (command.type) {
    case 'start':
      return start(command.cert, command.key);
    case 'counts':
      return counts();
    case 'reset': {
      const { hms, honor, xiaomi, oppo, vivo, meizu } = started();
      for (const fake of [hms, honor, xiaomi, oppo, vivo, meizu]) {
        fake.log.reset();
        fake.requests.length = 0;
      }
      return null;
    }
    case 'close':
      await Promise.allSettled(Object.values(fakes ?? {}).map((fake: Fakes[MakerName]) => fake.close()));
      fakes = undefined;
      setImmediate(() => process.exit(0));
      return null;
  }
}

async function start(cert: string, key: string): Promise<Record<MakerName, MakerEndpoints>> {
  if (fakes !== undefined) throw new Error('the fake makers are already started');
  const tls = { cert, key, record: 'count' as const };
  fakes = {
    hms: await FakeHms.start({ ...tls, apps: Object.values(hmsApps) }),
    honor: await FakeHonor.start({ ...tls, apps: Object.values(honorApps) }),
    xiaomi: await FakeXiaomi.start({ ...tls, apps: Object.values(xiaomiApps) }),
    oppo: await FakeOppo.start({ ...tls, apps: Object.values(oppoApps) }),
    vivo: await FakeVivo.start({ ...tls, apps: Object.values(vivoApps) }),
    meizu: await FakeMeizu.start({ ...tls, apps: Object.values(meizuApps) }),
  };
  const { hms, honor, xiaomi, oppo, vivo, meizu } = fakes;
  return {
    hms: { auth: hms.authUrl, send: hms.sendUrl },
    honor: { auth: honor.authUrl, send: honor.sendUrl },
    xiaomi: { send: xiaomi.sendUrl, sendGlobal: xiaomi.globalSendUrl },
    oppo: { auth: oppo.authUrl, send: oppo.sendUrl },
    vivo: { auth: vivo.authUrl, send: vivo.sendUrl, saveList: vivo.saveListUrl, sendList: vivo.sendListUrl },
    meizu: { send: meizu.sendUrl },
  };
}

function started(): Fakes {
  if (fakes === undefined) throw new Error('the fake makers are not started');
  return fakes;
}

function counts(): FakeMakersCounts {
  const { hms, honor, xiaomi, oppo, vivo, meizu } = started();
  const cpu = process.cpuUsage();
  return {
    makers: {
      hms: makerCounts(hms.log, hms.requests.map((request) => request.tokens.length)),
      honor: makerCounts(honor.log, honor.requests.map((request) => request.tokens.length)),
      xiaomi: makerCounts(xiaomi.log, xiaomi.requests.map((request) => request.regIds.length)),
      oppo: makerCounts(oppo.log, oppo.requests.map((request) => request.tokens.length)),
      vivo: makerCounts(vivo.log, vivo.requests.map((request) => request.tokens.length)),
      meizu: makerCounts(meizu.log, meizu.requests.map((request) => request.pushIds.length)),
    },
    cpu: { user: cpu.user, system: cpu.system },
  };
}

/** A fake's counts; `tokensPerRequest` lists how many tokens each request named (a vivo saved message names none). */
function makerCounts(log: DeliveryLog<{ token: string; status: number | 'stalled' }>, tokensPerRequest: number[]): MakerCounts {
  return {
    requests: tokensPerRequest.length,
    sends: tokensPerRequest.filter((tokens) => tokens > 0).length,
    largestRequest: tokensPerRequest.reduce((most, tokens) => Math.max(most, tokens), 0),
    deliveries: log.deliveryCount,
    distinctTokens: log.distinctTokens,
    duplicates: log.duplicates,
    refused: log.requestCount - log.deliveryCount,
  };
}
