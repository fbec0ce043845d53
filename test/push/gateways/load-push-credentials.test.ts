import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/load-config.ts';
import { appPushSchema, pushGatewaysSchema } from '../../../src/config/push-gateways-schema.ts';
import { loadPushCredentials, type PushApp } from '../../../src/push/gateways/load-push-credentials.ts';
import { testPki, writeServiceAccount, type TestPki } from '../../support/gateways/test-pki.ts';

let pki: TestPki;
let dir: string;

beforeAll(async () => {
  pki = await testPki();
  dir = mkdtempSync(join(tmpdir(), 'herald-credentials-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

function app(push: unknown): PushApp[] {
  return [{ id: 'app-1', push: appPushSchema.parse(push) }];
}

function loadError(apps: PushApp[], caFile?: string): ConfigError {
  try {
    loadPushCredentials(apps, { caFile });
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const token = (keyFile: string) => ({ apns: { token: { keyFile, keyId: pki.apns.key.keyId, teamId: pki.apns.teamId } } });

describe('loadPushCredentials', () => {
  it('reads token, certificates, profiles and a service account, with the topics and endpoints', () => {
    const serviceAccountFile = writeServiceAccount(pki, { projectId: 'herald-test', tokenUri: 'https://127.0.0.1:1/token' });
    const loaded = loadPushCredentials(
      app({
        apns: {
          token: { keyFile: pki.apns.key.file, keyId: pki.apns.key.keyId, teamId: pki.apns.teamId },
          certificates: {
            production: { pfxFile: pki.apns.production.pfxFile, passphraseFile: pki.apns.production.passphraseFile },
            development: { certFile: pki.apns.development.certFile, keyFile: pki.apns.development.keyFile },
            profiles: { other: { production: { certFile: pki.apns.profile.certFile, keyFile: pki.apns.profile.keyFile } } },
          },
        },
        fcm: { serviceAccountFile },
      }),
      { caFile: pki.ca.certFile },
    );
    const credentials = loaded.apps.get('app-1');

    expect(loaded.ca?.toString()).toBe(pki.ca.certPem);
    expect(credentials?.apns?.token?.key.asymmetricKeyType).toBe('ec');
    expect(credentials?.apns?.certificates.production?.topic).toBe(pki.apns.topic);
    expect(credentials?.apns?.certificates.development?.topic).toBe(pki.apns.topic);
    expect(credentials?.apns?.profiles.get('other')?.production?.topic).toBe(pki.apns.profileTopic);
    expect(credentials?.apns?.endpoints).toEqual({ production: 'https://api.push.apple.com', development: 'https://api.sandbox.push.apple.com' });
    expect(credentials?.fcm?.account).toMatchObject({ projectId: 'herald-test', clientEmail: pki.serviceAccount.clientEmail, tokenUri: 'https://127.0.0.1:1/token' });
    expect(credentials?.fcm?.endpoint).toBe('https://fcm.googleapis.com');
  });

  it('names the key and the path of a file that cannot be read', () => {
    const error = loadError(app(token(join(dir, 'missing.p8'))));
    expect(error.message).toBe(`apps[0].push.apns.token.keyFile: cannot read ${join(dir, 'missing.p8')} (ENOENT)`);
  });

  it('refuses a .p8 that is not a P-256 key', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const path = file('rsa.p8', rsa);
    expect(loadError(app(token(path))).message).toBe(`apps[0].push.apns.token.keyFile: ${path} is not a P-256 (ES256) key as APNs issues them`);
  });

  it('refuses a PKCS#12 file with the wrong passphrase without showing the passphrase', () => {
    const passphraseFile = file('wrong.passphrase', 'not-the-passphrase\n');
    const error = loadError(app({ apns: { certificates: { production: { pfxFile: pki.apns.production.pfxFile, passphraseFile } } } }));
    expect(error.message).toContain('apps[0].push.apns.certificates.production.pfxFile');
    expect(error.message).toContain(pki.apns.production.pfxFile);
    expect(error.message).not.toContain('not-the-passphrase');
  });

  it('refuses a PEM key that does not belong to the certificate', () => {
    const error = loadError(app({ apns: { certificates: { production: { certFile: pki.apns.production.certFile, keyFile: pki.apns.development.keyFile } } } }));
    expect(error.message).toBe(
      `apps[0].push.apns.certificates.production.keyFile: ${pki.apns.development.keyFile} is not the key of ${pki.apns.production.certFile}`,
    );
  });

  it('never quotes a broken service-account file, which holds the private key', () => {
    const path = file('broken.json', `{"type":"service_account","private_key":${JSON.stringify(pki.serviceAccount.privateKeyPem)},`);
    const error = loadError(app({ fcm: { serviceAccountFile: path } }));
    expect(error.message).toBe(`apps[0].push.fcm.serviceAccountFile: ${path} is not valid JSON`);
    expect(error.message).not.toContain('PRIVATE KEY');
  });

  it('refuses a service account without a project id', () => {
    const path = file('no-project.json', JSON.stringify({ type: 'service_account', client_email: 'a@b', private_key: pki.serviceAccount.privateKeyPem }));
    expect(loadError(app({ fcm: { serviceAccountFile: path } })).message).toBe(`apps[0].push.fcm.serviceAccountFile: ${path} has no project_id`);
  });

  it('refuses a CA file that holds no certificate', () => {
    expect(loadError([], file('ca.pem', 'hello')).message).toBe(`push.gateways.caFile: ${join(dir, 'ca.pem')} is not a PEM certificate`);
  });

  it('warns about an expired certificate and still starts', () => {
    const warnings: string[] = [];
    const config = app({ apns: { certificates: { production: { certFile: pki.apns.production.certFile, keyFile: pki.apns.production.keyFile } } } });
    loadPushCredentials(config, {}, { warn: (message) => warnings.push(message), now: Date.now() + 400 * 86_400_000 });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^apps\[0\]\.push\.apns\.certificates\.production: the certificate in .* expired on /);
  });

  it('answers an app without push settings with no credentials', () => {
    expect(loadPushCredentials([{ id: 'plain' }], {}).apps.get('plain')).toEqual({ apns: undefined, fcm: undefined, makers: new Map() });
  });
});

describe('push gateway config schemas', () => {
  it('fills the gateway defaults', () => {
    expect(pushGatewaysSchema.parse({})).toEqual({
      transport: 'herald',
      sessionsPerOrigin: { apns: 2, fcm: 20 },
      makerConnections: 8,
      requestTimeoutMs: 10_000,
      pingIntervalMs: 60_000,
      tokenRefreshMinutes: 50,
      retry: { maxAttempts: 5, baseDelayMs: 250, maxDelayMs: 10_000, maxRetryAfterMs: 60_000 },
    });
  });

  it('takes either transport and refuses any other', () => {
    expect(pushGatewaysSchema.parse({ transport: 'http2-wrapper' }).transport).toBe('http2-wrapper');
    expect(pushGatewaysSchema.safeParse({ transport: 'node' }).success).toBe(false);
  });

  it('fills one gateway\'s sessions when only the other is given, and says what a bare number lacks', () => {
    expect(pushGatewaysSchema.parse({ sessionsPerOrigin: { apns: 4 } }).sessionsPerOrigin).toEqual({ apns: 4, fcm: 20 });
    expect(pushGatewaysSchema.safeParse({ sessionsPerOrigin: 2 }).error?.issues[0]?.message).toBe('sessions per gateway, as { apns, fcm }');
  });

  it.each([
    [{ tokenRefreshMinutes: 19 }, 'tokenRefreshMinutes'],
    [{ tokenRefreshMinutes: 61 }, 'tokenRefreshMinutes'],
    [{ sessionsPerOrigin: 2 }, 'sessionsPerOrigin'],
    [{ sessionsPerOrigin: { fcm: 0 } }, 'sessionsPerOrigin.fcm'],
    [{ sessionsPerOrigin: { apns: 65 } }, 'sessionsPerOrigin.apns'],
    [{ sessionsPerOrigin: { webpush: 1 } }, 'sessionsPerOrigin'],
    [{ retry: { baseDelayMs: 500, maxDelayMs: 100 } }, 'retry.maxDelayMs'],
    [{ rejectUnauthorized: false }, ''],
  ])('refuses %j', (raw, path) => {
    const result = pushGatewaysSchema.safeParse(raw);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path.join('.')).toBe(path);
  });

  it.each([
    [{ apns: {} }, 'give token or certificates'],
    [{ apns: { token: { keyFile: 'k.p8', keyId: 'short', teamId: 'ABCDEFGHIJ' } } }, 'ten upper-case letters and digits'],
    [{ apns: { token: { keyFile: 'k.p8', keyId: 'ABCDEFGHIJ', teamId: 'ABCDEFGHIJ' }, endpoints: { production: 'https://proxy/apns' } } }, 'expected https://host[:port] with no path'],
    [{ apns: { certificates: { production: { pfxFile: 'a.p12', certFile: 'a.pem' } } } }, ''],
    [{ fcm: { serviceAccountFile: 'sa.json', privateKey: 'inline' } }, ''],
  ])('refuses app push settings %j', (raw, message) => {
    const result = appPushSchema.safeParse(raw);
    expect(result.success).toBe(false);
    if (message !== '') expect(result.error?.issues[0]?.message).toBe(message);
  });
});
