import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { createSecureContext, TLSSocket } from 'node:tls';
import { ConfigError } from '../../config/load-config.ts';
import type { ApnsCertificateConfig } from '../../config/push-gateways-schema.ts';
import { googleTokenUri, type FcmServiceAccount } from './fcm-service-account.ts';
import type { ApnsCertificateCredential } from './push-credentials.ts';

export interface CredentialFilesOptions {
  /** Told about problems that do not stop the start, such as an expired certificate. */
  warn?: (message: string) => void;
  /** Reads a file; default `readFileSync`. */
  readFile?: (path: string) => Buffer;
  /** For the expiry warning; default `Date.now()`. */
  now?: number;
}

/**
 * Reads credential files, turning every failure into a `ConfigError` that
 * names key and path only, never the file's content, so a secret cannot
 * reach a log through an error.
 */
export class CredentialFiles {
  readonly #options: CredentialFilesOptions;

  constructor(options: CredentialFilesOptions) {
    this.#options = options;
  }

  read(key: string, path: string): Buffer {
    try {
      return (this.#options.readFile ?? readFileSync)(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new ConfigError(`${key}: cannot read ${path} (${code})`);
    }
  }

  /**
   * A secret kept in a file of its own (a maker's app secret): its text
   * without a trailing newline, which must not be empty or hold other line breaks.
   */
  secret(key: string, path: string): string {
    const text = this.read(key, path).toString('utf8').replace(/\r?\n$/, '');
    if (text === '' || /[\r\n]/.test(text)) throw new ConfigError(`${key}: ${path} must hold the secret alone, on one line`);
    return text;
  }

  ca(key: string, path: string): Buffer {
    const pem = this.read(key, path);
    try {
      new X509Certificate(pem);
    } catch {
      throw new ConfigError(`${key}: ${path} is not a PEM certificate`);
    }
    return pem;
  }

  es256Key(key: string, path: string): KeyObject {
    const privateKey = this.#privateKey(key, path, this.read(key, path));
    if (privateKey.asymmetricKeyType !== 'ec' || privateKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
      throw new ConfigError(`${key}: ${path} is not a P-256 (ES256) key as APNs issues them`);
    }
    return privateKey;
  }

  certificate(key: string, config: ApnsCertificateConfig): ApnsCertificateCredential {
    const passphrase = config.passphraseFile === undefined ? undefined : this.#passphrase(`${key}.passphraseFile`, config.passphraseFile);
    if ('pfxFile' in config) return this.#pkcs12(`${key}.pfxFile`, config.pfxFile, passphrase);
    const cert = this.read(`${key}.certFile`, config.certFile);
    const keyPem = this.read(`${key}.keyFile`, config.keyFile);
    let x509: X509Certificate;
    try {
      x509 = new X509Certificate(cert);
    } catch {
      throw new ConfigError(`${key}.certFile: ${config.certFile} is not a PEM certificate`);
    }
    const privateKey = this.#privateKey(`${key}.keyFile`, config.keyFile, keyPem, passphrase);
    if (!x509.checkPrivateKey(privateKey)) throw new ConfigError(`${key}.keyFile: ${config.keyFile} is not the key of ${config.certFile}`);
    const expiresAt = Date.parse(x509.validTo);
    this.#warnIfExpired(key, config.certFile, expiresAt);
    return { auth: { kind: 'certificate', cert, key: keyPem, passphrase }, topic: subjectField(x509.subject, 'UID'), expiresAt };
  }

  serviceAccount(key: string, path: string): FcmServiceAccount {
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(this.read(key, path).toString('utf8')) as Record<string, unknown>;
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      // JSON.parse quotes the text around the fault, which would put the private key in the message.
      throw new ConfigError(`${key}: ${path} is not valid JSON`);
    }
    if (typeof json !== 'object' || json === null) throw new ConfigError(`${key}: ${path} is not a service-account JSON object`);
    for (const field of ['project_id', 'client_email', 'private_key'] as const) {
      if (typeof json[field] !== 'string' || json[field] === '') throw new ConfigError(`${key}: ${path} has no ${field}`);
    }
    if (json.type !== undefined && json.type !== 'service_account') throw new ConfigError(`${key}: ${path} is not a service account (type ${JSON.stringify(json.type)})`);
    const privateKey = this.#privateKey(key, path, Buffer.from(json.private_key as string));
    if (privateKey.asymmetricKeyType !== 'rsa') throw new ConfigError(`${key}: the private_key of ${path} is not an RSA key`);
    const tokenUri = typeof json.token_uri === 'string' && json.token_uri !== '' ? json.token_uri : googleTokenUri;
    if (!tokenUri.startsWith('https://')) throw new ConfigError(`${key}: the token_uri of ${path} is not https`);
    return {
      projectId: json.project_id as string,
      clientEmail: json.client_email as string,
      privateKey,
      privateKeyId: typeof json.private_key_id === 'string' ? json.private_key_id : undefined,
      tokenUri,
    };
  }

  #pkcs12(key: string, path: string, passphrase: string | undefined): ApnsCertificateCredential {
    const pfx = this.read(key, path);
    let socket: TLSSocket | undefined;
    try {
      // Node has no PKCS#12 reader; a secure context opens the file (checking
      // the passphrase) and an unconnected socket on it shows the certificate.
      socket = new TLSSocket(new PassThrough(), { secureContext: createSecureContext({ pfx, passphrase }) });
      const certificate = socket.getCertificate();
      if (certificate === null || !('subject' in certificate)) throw new Error('no certificate');
      const expiresAt = Date.parse(certificate.valid_to);
      this.#warnIfExpired(key, path, expiresAt);
      const uid = certificate.subject.UID;
      return { auth: { kind: 'certificate', pfx, passphrase }, topic: Array.isArray(uid) ? uid[0] : uid, expiresAt };
    } catch {
      throw new ConfigError(`${key}: cannot open ${path}: not a PKCS#12 file with a certificate, or the wrong passphrase`);
    } finally {
      socket?.destroy();
    }
  }

  #passphrase(key: string, path: string): string {
    return this.read(key, path).toString('utf8').replace(/\r?\n$/, '');
  }

  #privateKey(key: string, path: string, pem: Buffer, passphrase?: string): KeyObject {
    try {
      return createPrivateKey(passphrase === undefined ? pem : { key: pem, passphrase });
    } catch {
      throw new ConfigError(`${key}: ${path} holds no readable private key${passphrase === undefined ? '' : ' (or the passphrase is wrong)'}`);
    }
  }

  #warnIfExpired(key: string, path: string, expiresAt: number): void {
    if (expiresAt <= (this.#options.now ?? Date.now())) this.#options.warn?.(`${key}: the certificate in ${path} expired on ${new Date(expiresAt).toISOString()}`);
  }
}

/** One field of an X509Certificate subject (`UID=…\nCN=…`). */
function subjectField(subject: string, name: string): string | undefined {
  const line = subject.split('\n').find((entry) => entry.startsWith(`${name}=`));
  return line?.slice(name.length + 1);
}
