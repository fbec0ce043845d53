import { readFileSync } from 'node:fs';
import { createSecureContext, type ConnectionOptions } from 'node:tls';
import type { TlsConfig } from './backends-schema.ts';
import { ConfigError, describeSetting } from './load-config.ts';

/**
 * The secrets of the backend settings, read from their files at start:
 * passwords and TLS material. Every problem is a ConfigError naming the
 * setting (and its variable), never the secret.
 */

/** A file's text without the one trailing newline that `echo` and Kubernetes Secrets tend to leave. */
export function readSecretFile(file: string, setting: readonly string[]): string {
  const text = readSetting(file, setting).toString('utf8').replace(/\r?\n$/, '');
  if (text === '') throw new ConfigError(`${describeSetting(setting)}: ${file} is empty`);
  return text;
}

/** The password given in the config or its variable, else read from its file; undefined when neither is set. */
export function passwordOf(backend: { password?: string; passwordFile?: string }, at: readonly string[]): string | undefined {
  if (backend.passwordFile !== undefined) return readSecretFile(backend.passwordFile, [...at, 'passwordFile']);
  return backend.password;
}

/**
 * `node:tls` options for a backend's TLS settings, or undefined when TLS is
 * off: the CA and the client certificate and key read and checked (a file
 * without PEM, a key that does not match its certificate), the server name,
 * and verification on, which no setting turns off.
 */
export function tlsOptionsOf(tls: TlsConfig, at: readonly string[]): ConnectionOptions | undefined {
  if (!tls.enabled) return undefined;
  const options: ConnectionOptions = { rejectUnauthorized: true };
  if (tls.caFile !== undefined) options.ca = [readPem(tls.caFile, [...at, 'caFile'], 'CERTIFICATE')];
  if (tls.certFile !== undefined && tls.keyFile !== undefined) {
    options.cert = readPem(tls.certFile, [...at, 'certFile'], 'CERTIFICATE');
    options.key = readPem(tls.keyFile, [...at, 'keyFile'], 'PRIVATE KEY');
  }
  if (tls.serverName !== undefined) options.servername = tls.serverName;
  try {
    createSecureContext({ ca: options.ca, cert: options.cert, key: options.key });
  } catch (error) {
    const setting = options.key === undefined ? [...at, 'caFile'] : [...at, 'keyFile'];
    throw new ConfigError(`${describeSetting(setting)}: ${describeTlsFileError(error, options.key !== undefined)}`);
  }
  return options;
}

function readPem(file: string, setting: readonly string[], label: 'CERTIFICATE' | 'PRIVATE KEY'): Buffer {
  const pem = readSetting(file, setting);
  // "PRIVATE KEY" also matches the RSA and EC forms (BEGIN RSA PRIVATE KEY).
  if (!pem.includes(label)) throw new ConfigError(`${describeSetting(setting)}: ${file} holds no PEM ${label === 'CERTIFICATE' ? 'certificate' : 'private key'}`);
  if (label === 'PRIVATE KEY' && pem.includes('ENCRYPTED')) {
    throw new ConfigError(`${describeSetting(setting)}: ${file} holds an encrypted key; give it unencrypted (openssl pkey -in <key> -out <key without passphrase>)`);
  }
  return pem;
}

function readSetting(file: string, setting: readonly string[]): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new ConfigError(`${describeSetting(setting)}: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

function describeTlsFileError(error: unknown, withKey: boolean): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/key values mismatch/i.test(message)) return 'the private key does not belong to the client certificate';
  return `${withKey ? 'the CA, certificate or key' : 'the CA file'} cannot be used: ${message}`;
}
