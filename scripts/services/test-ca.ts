import { randomBytes } from 'node:crypto';
import { access, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Report } from './local-service.ts';
import { runCommand } from './run-command.ts';
import { ServiceError } from './service-error.ts';

/**
 * The TLS files of the secured services, all PEM. Made at run time by
 * `openssl` under the services folder, never committed: a test CA, the one
 * certificate every secured listener presents, a client certificate for
 * mutual TLS, and a second CA that signed nothing the services trust, for the
 * tests of what must be refused.
 */
export interface TlsMaterial {
  readonly dir: string;
  /** The test CA: what a client must trust to talk to the secured listeners. */
  readonly caCert: string;
  /** The services' certificate, for `localhost`, `127.0.0.1` and `herald-services.test`. */
  readonly serverCert: string;
  readonly serverKey: string;
  /** The server's key and certificate in one file, as Kafka's and Cassandra's PEM keystores take them. */
  readonly serverKeystore: string;
  /** A client certificate (CN=herald) signed by the test CA. */
  readonly clientCert: string;
  readonly clientKey: string;
  /** A CA that signed neither the services' certificate nor the client's. */
  readonly untrustedCaCert: string;
  /** A client certificate (CN=herald) signed by the untrusted CA. */
  readonly untrustedClientCert: string;
  readonly untrustedClientKey: string;
}

/** The names the services' certificate carries; the last is for tests of a server name other than the host dialled. */
export const serverCertificateNames = ['localhost', '127.0.0.1', 'herald-services.test'] as const;

const validDays = 825;
/** Certificates that expire within this many seconds are made again. */
const renewWithinSeconds = 30 * 86_400;

/** The paths of the TLS files under `dir`, whether they exist or not. */
export function tlsMaterialIn(dir: string): TlsMaterial {
  const file = (name: string) => path.join(dir, name);
  return {
    dir,
    caCert: file('ca.crt'),
    serverCert: file('server.crt'),
    serverKey: file('server.key'),
    serverKeystore: file('server-keystore.pem'),
    clientCert: file('client.crt'),
    clientKey: file('client.key'),
    untrustedCaCert: file('untrusted-ca.crt'),
    untrustedClientCert: file('untrusted-client.crt'),
    untrustedClientKey: file('untrusted-client.key'),
  };
}

/** The TLS files of the secured services, in the `tls` folder of the secured folder. */
export function securedTlsMaterial(securedDir: string): TlsMaterial {
  return tlsMaterialIn(path.join(securedDir, 'tls'));
}

/**
 * The TLS files under `dir`, made with openssl when any is missing or a
 * certificate expires within 30 days. They are made in a folder of their
 * own and moved into place at once, so a failure halfway leaves no mixture.
 */
export async function ensureTlsMaterial(dir: string, report: Report): Promise<TlsMaterial> {
  const material = tlsMaterialIn(dir);
  if (await isCurrent(material)) return material;
  report(`making a test CA and certificates with openssl in ${dir}`);
  const staging = `${dir}.new-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true, mode: 0o700 });
  const logFile = `${dir}.openssl.log`;
  await rm(logFile, { force: true });
  const openssl = new Openssl(staging, logFile);
  await openssl.makeCa('ca', 'Herald local services test CA');
  await openssl.makeCa('untrusted-ca', 'Herald untrusted test CA');
  const san = serverCertificateNames.map((name) => (/^\d+\.\d+\.\d+\.\d+$/.test(name) ? `IP:${name}` : `DNS:${name}`)).join(',');
  await openssl.makeLeaf('server', 'ca', 'localhost', [`subjectAltName=${san}`, 'extendedKeyUsage=serverAuth,clientAuth']);
  await openssl.makeLeaf('client', 'ca', 'herald', ['extendedKeyUsage=clientAuth']);
  await openssl.makeLeaf('untrusted-client', 'untrusted-ca', 'herald', ['extendedKeyUsage=clientAuth']);
  const keystore = (await readFile(path.join(staging, 'server.key'), 'utf8')) + (await readFile(path.join(staging, 'server.crt'), 'utf8'));
  await writeFile(path.join(staging, 'server-keystore.pem'), keystore, { mode: 0o600 });
  await rm(dir, { recursive: true, force: true });
  await rename(staging, dir);
  return material;
}

async function isCurrent(material: TlsMaterial): Promise<boolean> {
  const files = Object.entries(material).filter(([key]) => key !== 'dir').map(([, file]) => file as string);
  if (!(await Promise.all(files.map(exists))).every(Boolean)) return false;
  for (const certificate of [material.caCert, material.serverCert, material.clientCert]) {
    const result = await runCommand('openssl', ['x509', '-checkend', String(renewWithinSeconds), '-noout', '-in', certificate], {
      cwd: material.dir,
      logFile: `${material.dir}.openssl.log`,
    });
    if (result.code !== 0) return false;
  }
  return true;
}

/** The openssl steps, each failing with the tail of the log. */
class Openssl {
  readonly #dir: string;
  readonly #logFile: string;

  constructor(dir: string, logFile: string) {
    this.#dir = dir;
    this.#logFile = logFile;
  }

  /** A self-signed CA: `<name>.crt` and `<name>.key`. */
  async makeCa(name: string, commonName: string): Promise<void> {
    await this.#run([
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes',
      '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', String(validDays),
      '-subj', `/CN=${commonName}`,
      '-addext', 'basicConstraints=critical,CA:TRUE',
      '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
    ]);
  }

  /** A key and a certificate signed by the CA `issuer`, with the extensions given. */
  async makeLeaf(name: string, issuer: string, commonName: string, extensions: readonly string[]): Promise<void> {
    await this.#run(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${commonName}`]);
    const extFile = `${name}.ext`;
    await writeFile(path.join(this.#dir, extFile), ['basicConstraints=CA:FALSE', 'keyUsage=critical,digitalSignature,keyEncipherment', ...extensions, ''].join('\n'));
    await this.#run([
      'x509', '-req', '-in', `${name}.csr`, '-CA', `${issuer}.crt`, '-CAkey', `${issuer}.key`,
      '-set_serial', `0x${randomBytes(16).toString('hex')}`, '-days', String(validDays),
      '-extfile', extFile, '-out', `${name}.crt`,
    ]);
    await rm(path.join(this.#dir, `${name}.csr`));
    await rm(path.join(this.#dir, extFile));
  }

  async #run(args: readonly string[]): Promise<void> {
    let result;
    try {
      result = await runCommand('openssl', args, { cwd: this.#dir, logFile: this.#logFile });
    } catch (error) {
      throw new ServiceError('tls', `cannot run openssl (${(error as Error).message}); install it (Debian: apt-get install openssl)`, { cause: error });
    }
    if (result.code !== 0) throw await ServiceError.withLogTail('tls', `openssl ${args[0]} failed (${result.signal ?? `exit ${result.code}`})`, this.#logFile);
  }
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
