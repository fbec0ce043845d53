import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../src/accounts/passwords.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { deploymentOf } from './support/chart-pods.ts';
import { ChartPodSandbox } from './support/chart-pod-sandbox.ts';
import { ciValues, renderChart, templateChart } from './support/helm-chart.ts';

/** The production values' Secret (test/deploy/chart-config.test.ts), without which the pod does not assemble. */
const appSecret: Record<string, string> = {
  'app.shop.key': 'shop-app-key-0001',
  'app.shop.masterKey': 'shop-master-key-0001',
  'app.game.key': 'game-app-key-0001',
  'app.game.masterKey': 'game-master-key-0001',
  'apns.shop.p8': '-----BEGIN PRIVATE KEY-----\nnot a real key\n-----END PRIVATE KEY-----\n',
  'fcm.shop.json': '{"type": "service_account"}',
  'apns.game.production.p12': 'pkcs12 bytes',
  'apns.game.production.pass': 'p12 passphrase',
  'cassandra-password': 'cassandra-secret',
  'redis-url': 'redis://:redis-secret@redis-master.redis:6379',
};

const accounts = JSON.stringify([
  { username: 'grace', role: 'operator', apps: ['shop'] },
  { username: 'ada', role: 'admin', apps: ['*'] },
]);

let graceHash = '';
let adaHash = '';
let fileHash = '';
const sandboxes: ChartPodSandbox[] = [];

beforeAll(async () => {
  [graceHash, adaHash, fileHash] = await Promise.all([hashPassword('grace-console-password'), hashPassword('ada-console-password'), hashPassword('lin-console-password')]);
});

afterEach(() => {
  for (const made of sandboxes.splice(0)) made.remove();
});

afterAll(() => {
  for (const made of sandboxes.splice(0)) made.remove();
});

function apiPod(options: { setJson?: string[]; set?: string[] }, secret: Record<string, string>): ChartPodSandbox {
  const objects = renderChart({ values: [ciValues.production], ...options });
  const pod = new ChartPodSandbox(objects, deploymentOf(objects, 'api'), { ...appSecret, ...secret });
  sandboxes.push(pod);
  return pod;
}

describe('console accounts in the chart', () => {
  it('gives each account of values its hash from the Secret entry console.<username>.passwordHash, and Herald accepts them', async () => {
    const pod = apiPod({ setJson: [`console.accounts=${accounts}`], set: ['console.trustProxy=1'] }, { 'console.grace.passwordHash': graceHash, 'console.ada.passwordHash': `${adaHash}\n` });
    const init = pod.runInit();
    expect(init.status, `${init.stdout}${init.stderr}`).toBe(0);
    expect(init.stdout).toContain('console accounts: 2');
    const { config } = loadConfig({ env: pod.heraldEnvironment() });
    expect(config.console.enabled).toBe(true);
    expect(config.console.trustProxy).toBe(1);
    expect(config.console.accounts.map(({ username, role, apps }) => ({ username, role, apps }))).toEqual([
      { username: 'grace', role: 'operator', apps: ['shop'] },
      { username: 'ada', role: 'admin', apps: ['*'] },
    ]);
    const grace = config.console.accounts.find((account) => account.username === 'grace');
    expect(await verifyPassword(grace?.passwordHash ?? '', 'grace-console-password')).toBe(true);
    // No hash is in the ConfigMap.
    expect(JSON.stringify(renderChart({ values: [ciValues.production], setJson: [`console.accounts=${accounts}`] }))).not.toContain('$argon2id$');
  });

  it('reads an accounts file from the Secret entry console.accountsKey names, beside the accounts of values', async () => {
    const file = JSON.stringify([{ username: 'lin', passwordHash: fileHash, role: 'viewer', apps: ['game'] }]);
    const pod = apiPod({ setJson: [`console.accounts=${JSON.stringify([{ username: 'grace', role: 'operator', apps: ['shop'] }])}`], set: ['console.accountsKey=console-accounts.json'] }, {
      'console.grace.passwordHash': graceHash,
      'console-accounts.json': file,
    });
    const init = pod.runInit();
    expect(init.status, `${init.stdout}${init.stderr}`).toBe(0);
    const { config } = loadConfig({ env: pod.heraldEnvironment() });
    expect(config.console.accounts.map((account) => [account.username, account.role, account.apps])).toEqual([
      ['grace', 'operator', ['shop']],
      ['lin', 'viewer', ['game']],
    ]);
    expect(await verifyPassword(config.console.accounts[1]?.passwordHash ?? '', 'lin-console-password')).toBe(true);
  });

  it('stops the pod, naming each problem, when a hash is missing, the accounts file is not a list of accounts or a username is given twice', () => {
    const pod = apiPod({ setJson: [`console.accounts=${accounts}`], set: ['console.accountsKey=console-accounts.json'] }, {
      'console.grace.passwordHash': graceHash,
      'console-accounts.json': JSON.stringify([{ username: 'grace', passwordHash: graceHash, role: 'viewer', apps: ['*'] }]),
    });
    const init = pod.runInit();
    expect(init.status).not.toBe(0);
    expect(init.stderr).toContain('has no entry console.ada.passwordHash (the password hash of console account ada; make it with herald console-user)');
    expect(init.stderr).toContain('console account grace is given twice');
    expect(init.stderr).not.toContain(graceHash);
    const notAList = apiPod({ set: ['console.accountsKey=console-accounts.json'] }, { 'console-accounts.json': 'username: grace' }).runInit();
    expect(notAList.stderr).toContain('the Secret entry console-accounts.json (console.accountsKey) must hold a JSON list of accounts');
  });

  it('refuses a password hash in values, and a role the console does not have, before anything is installed', () => {
    const hashed = templateChart({ values: [ciValues.production], setJson: [`console.accounts=${JSON.stringify([{ username: 'grace', role: 'operator', passwordHash: '$argon2id$v=19$m=19456,p=1,t=2$c2FsdA$aGFzaA' }])}`] });
    expect(hashed.status).not.toBe(0);
    expect(hashed.stderr).toContain('passwordHash');
    const role = templateChart({ values: [ciValues.production], setJson: [`console.accounts=${JSON.stringify([{ username: 'grace', role: 'root' }])}`] });
    expect(role.status).not.toBe(0);
    expect(role.stderr).toContain('role');
  });

  it('switches the console off with console.enabled=false', () => {
    const pod = apiPod({ set: ['console.enabled=false'] }, {});
    expect(pod.runInit().status).toBe(0);
    expect(loadConfig({ env: pod.heraldEnvironment() }).config.console.enabled).toBe(false);
  });
});
