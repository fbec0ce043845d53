import { execFile } from 'node:child_process';
import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A certificate with its key, as files and as PEM. */
export interface CertificateFiles {
  certFile: string;
  keyFile: string;
  certPem: string;
  keyPem: string;
}

/** An APNs provider certificate as Apple issues them: the topic in the subject's UID. */
export interface ApnsClientCertificate extends CertificateFiles {
  topic: string;
  environment: 'production' | 'development';
  /** The same certificate and key as a PKCS#12 file protected by `passphrase`. */
  pfxFile: string;
  passphraseFile: string;
  passphrase: string;
}

/** Everything the gateway tests need to speak TLS and sign tokens, made once per process. */
export interface TestPki {
  dir: string;
  /** The CA the clients are told to trust (the CA setting). */
  ca: { certFile: string; certPem: string };
  /** `127.0.0.1` and `localhost`, signed by `ca`. */
  server: CertificateFiles;
  /** A server certificate for the same names signed by a CA nobody trusts. */
  untrustedServer: CertificateFiles;
  /** The other CA, which the fakes do not accept client certificates from. */
  otherCa: { certFile: string; certPem: string };
  apns: {
    teamId: string;
    topic: string;
    /** Topic of the named `deviceProfile` certificate. */
    profileTopic: string;
    production: ApnsClientCertificate;
    development: ApnsClientCertificate;
    /** Production certificate of the `profileTopic` app, for `deviceProfile` tests. */
    profile: ApnsClientCertificate;
    /** Production certificate for `topic`, signed by `otherCa`. */
    untrusted: ApnsClientCertificate;
    /** The ES256 signing key of token auth, as a `.p8` file. */
    key: { keyId: string; file: string; pem: string; publicKey: KeyObject };
  };
  /** RSA key of a Google service account (see `writeServiceAccount`). */
  serviceAccount: { clientEmail: string; privateKeyPem: string; publicKey: KeyObject };
}

let made: Promise<TestPki> | undefined;

/**
 * The test PKI of this process, made on first use in a temporary folder
 * (removed at exit) with the `openssl` CLI and node:crypto. EC keys keep the
 * handshakes cheap.
 */
export function testPki(): Promise<TestPki> {
  made ??= makePki();
  return made;
}

/** Writes a service-account JSON file as Google issues them and answers its path. */
export function writeServiceAccount(pki: TestPki, settings: { projectId: string; tokenUri: string; name?: string }): string {
  const file = join(pki.dir, `${settings.name ?? settings.projectId}-service-account.json`);
  const json = {
    type: 'service_account',
    project_id: settings.projectId,
    private_key_id: 'test-key-1',
    private_key: pki.serviceAccount.privateKeyPem,
    client_email: pki.serviceAccount.clientEmail,
    client_id: '100000000000000000001',
    token_uri: settings.tokenUri,
  };
  writeFileSync(file, JSON.stringify(json, null, 2), { mode: 0o600 });
  return file;
}

async function makePki(): Promise<TestPki> {
  const dir = mkdtempSync(join(tmpdir(), 'herald-pki-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string): string => join(dir, name);

  const [ca, otherCa] = await Promise.all([makeCa(dir, 'ca', 'Herald Test CA'), makeCa(dir, 'other-ca', 'Nobody Trusts This CA')]);
  const serverNames = ['-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-addext', 'extendedKeyUsage=serverAuth'];
  const teamId = 'HERALDTEAM';
  const topic = 'com.herald.test';
  const profileTopic = 'com.herald.other';
  const [server, untrustedServer, production, development, profile, untrusted] = await Promise.all([
    makeCertificate(dir, 'server', ca, '/CN=localhost', serverNames),
    makeCertificate(dir, 'untrusted-server', otherCa, '/CN=localhost', serverNames),
    makeApnsCertificate(dir, 'apns-production', ca, topic, 'production', teamId),
    makeApnsCertificate(dir, 'apns-development', ca, topic, 'development', teamId),
    makeApnsCertificate(dir, 'apns-profile', ca, profileTopic, 'production', teamId),
    makeApnsCertificate(dir, 'apns-untrusted', otherCa, topic, 'production', teamId),
  ]);

  const apnsKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const p8 = apnsKey.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const keyId = 'HERALDKEY1';
  writeFileSync(file(`AuthKey_${keyId}.p8`), p8, { mode: 0o600 });

  const account = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const accountPem = account.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

  return {
    dir,
    ca: { certFile: ca.certFile, certPem: ca.certPem },
    otherCa: { certFile: otherCa.certFile, certPem: otherCa.certPem },
    server,
    untrustedServer,
    apns: {
      teamId,
      topic,
      profileTopic,
      production,
      development,
      profile,
      untrusted,
      key: { keyId, file: file(`AuthKey_${keyId}.p8`), pem: p8, publicKey: createPublicKey(apnsKey.privateKey) },
    },
    serviceAccount: {
      clientEmail: 'herald-push@herald-test.iam.gserviceaccount.com',
      privateKeyPem: accountPem,
      publicKey: createPublicKey(account.privateKey),
    },
  };
}

interface CaFiles extends CertificateFiles {
  name: string;
}

async function makeCa(dir: string, name: string, commonName: string): Promise<CaFiles> {
  const keyFile = join(dir, `${name}.key`);
  const certFile = join(dir, `${name}.crt`);
  writeKey(keyFile);
  await openssl([
    ...['req', '-x509', '-new', '-key', keyFile, '-out', certFile, '-days', '30', '-subj', `/CN=${commonName}`],
    ...['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
  ]);
  return { name, ...(await readPair(certFile, keyFile)) };
}

async function makeCertificate(dir: string, name: string, ca: CaFiles, subject: string, extensions: string[]): Promise<CertificateFiles> {
  const keyFile = join(dir, `${name}.key`);
  const certFile = join(dir, `${name}.crt`);
  writeKey(keyFile);
  // `req -CA` (OpenSSL 3) signs in one step, without a CSR file or serial file.
  await openssl([
    ...['req', '-new', '-key', keyFile, '-subj', subject, '-CA', ca.certFile, '-CAkey', ca.keyFile, '-days', '30', '-out', certFile],
    ...['-addext', 'basicConstraints=critical,CA:FALSE', ...extensions],
  ]);
  return readPair(certFile, keyFile);
}

async function makeApnsCertificate(
  dir: string,
  name: string,
  ca: CaFiles,
  topic: string,
  environment: 'production' | 'development',
  teamId: string,
): Promise<ApnsClientCertificate> {
  // Apple's subjects: "Apple Push Services: <bundle>" for production (and
  // universal) certificates, "Apple Development IOS Push Services: <bundle>" for sandbox ones.
  const commonName = environment === 'production' ? `Apple Push Services: ${topic}` : `Apple Development IOS Push Services: ${topic}`;
  const pair = await makeCertificate(dir, name, ca, `/UID=${topic}/CN=${commonName}/OU=${teamId}/O=Herald Test/C=US`, [
    '-addext',
    'extendedKeyUsage=clientAuth',
  ]);
  const passphrase = `pass-${name}`;
  const passphraseFile = join(dir, `${name}.passphrase`);
  writeFileSync(passphraseFile, `${passphrase}\n`, { mode: 0o600 });
  const pfxFile = join(dir, `${name}.p12`);
  await openssl(['pkcs12', '-export', '-in', pair.certFile, '-inkey', pair.keyFile, '-out', pfxFile, '-passout', `file:${passphraseFile}`]);
  return { ...pair, topic, environment, pfxFile, passphraseFile, passphrase };
}

function writeKey(file: string): void {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  writeFileSync(file, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
}

async function readPair(certFile: string, keyFile: string): Promise<CertificateFiles> {
  const [certPem, keyPem] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
  return { certFile, keyFile, certPem, keyPem };
}

async function openssl(args: string[]): Promise<void> {
  try {
    await run('openssl', args);
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`openssl ${args[0]} failed: ${stderr || (error as Error).message}`, { cause: error });
  }
}
