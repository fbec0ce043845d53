import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.ts';
import type { Clock } from '../../src/core/clock.ts';
import { silentLogger } from '../../src/core/logger.ts';
import type { ClassDescriptors, Store } from '../../src/core/ports/object-store.ts';
import { BackendStartError } from '../../src/runtime/backend-start-error.ts';
import { openStore } from '../../src/runtime/open-store.ts';
import { runHeraldCommand } from '../support/herald-process.ts';
import { expectSecuredListeners, securedEndpoints, securedServices } from '../support/secured-services.ts';
import { serviceEndpoints } from '../support/service-endpoints.ts';
import { countingInstallations } from './cassandra-counting-installations.ts';
import { testKeyspace } from './cassandra-test-keyspace.ts';
import { describePushDataConformance } from './push-data-conformance.ts';
import { conformanceShards, pushDataClock } from './push-data-fixture.ts';
import { describeStoreConformance } from './store-conformance.ts';

/**
 * Herald on the secured Cassandra node (scripts/services: TLS only, a client
 * certificate of the test CA required, the password authenticator), set up
 * through the documented variables as an operator would.
 */
const { tls, credentials } = securedServices();
const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-cassandra-secured-'));
const passwordFile = path.join(dataDir, 'cassandra-password');
// As Kubernetes mounts a Secret made with `echo`: the trailing newline is not part of the password.
writeFileSync(passwordFile, `${credentials.cassandra.password}\n`);

function securedEnv(keyspace: string): Record<string, string> {
  return {
    HERALD_APP_ID: 'shop',
    HERALD_APP_KEY: 'app-key-123',
    HERALD_MASTER_KEY: 'master-key-123',
    HERALD_DATA_DIR: dataDir,
    HERALD_CASSANDRA_CONTACT_POINTS: securedEndpoints.cassandra.contactPoints.join(','),
    HERALD_CASSANDRA_KEYSPACE: keyspace,
    HERALD_CASSANDRA_USERNAME: credentials.cassandra.username,
    HERALD_CASSANDRA_PASSWORD_FILE: passwordFile,
    HERALD_CASSANDRA_TLS_CA_FILE: tls.caCert,
    HERALD_CASSANDRA_TLS_CERT_FILE: tls.clientCert,
    HERALD_CASSANDRA_TLS_KEY_FILE: tls.clientKey,
  };
}

/** Opens the store the environment describes, as Herald does at start. */
function open(env: Record<string, string | undefined>, options: { classes?: ClassDescriptors; clock?: Clock; installationShards?: number } = {}): Promise<Store> {
  const { config } = loadConfig({ env });
  return openStore(config.store, {
    dataDir,
    classes: options.classes ?? {},
    clock: options.clock ?? pushDataClock,
    logger: silentLogger(),
    installationShards: options.installationShards ?? conformanceShards,
  });
}

/** A driver client of the secured node as the test user, for looking behind the store's back. */
async function connectSecuredAdmin(): Promise<Client> {
  const client = new Client({
    ...securedEndpoints.cassandra,
    contactPoints: [...securedEndpoints.cassandra.contactPoints],
    credentials: credentials.cassandra,
    sslOptions: { ca: [readFileSync(tls.caCert)], cert: readFileSync(tls.clientCert), key: readFileSync(tls.clientKey), rejectUnauthorized: true },
    protocolOptions: { maxVersion: 4 },
    isMetadataSyncEnabled: false,
  });
  await client.connect();
  return client;
}

async function keyspaceExists(keyspace: string): Promise<boolean> {
  const admin = await connectSecuredAdmin();
  try {
    const result = await admin.execute('SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?', [keyspace], { prepare: true });
    return result.rowLength > 0;
  } finally {
    await admin.shutdown();
  }
}

async function dropSecuredKeyspace(keyspace: string): Promise<void> {
  const admin = await connectSecuredAdmin();
  try {
    await admin.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`, [], { readTimeout: 60_000 });
  } finally {
    await admin.shutdown();
  }
}

beforeAll(() => expectSecuredListeners('cassandra-secured'));

describeStoreConformance('Cassandra over TLS with a client certificate and a password', async (classes, clock) => {
  const keyspace = testKeyspace();
  const opened: Store[] = [];
  const openOne = async (): Promise<Store> => {
    const store = await open(securedEnv(keyspace), { classes, clock });
    opened.push(store);
    return store;
  };
  return {
    store: await openOne(),
    openAnother: openOne,
    cleanup: async () => {
      for (const store of opened) await store.close();
      await dropSecuredKeyspace(keyspace);
    },
  };
});

describePushDataConformance('Cassandra over TLS with a client certificate and a password', async () => {
  const keyspace = testKeyspace();
  const opened: Store[] = [];
  const clients: Client[] = [];
  const openOne = async (installationShards = conformanceShards): Promise<Store> => {
    const store = await open(securedEnv(keyspace), { installationShards });
    opened.push(store);
    return store;
  };
  return {
    store: await openOne(),
    openAnother: () => openOne(),
    openWithShards: (shards) => openOne(shards),
    counting: async () => {
      const client = await connectSecuredAdmin();
      clients.push(client);
      return countingInstallations(client, keyspace);
    },
    cleanup: async () => {
      for (const store of opened) await store.close();
      for (const client of clients) await client.shutdown();
      await dropSecuredKeyspace(keyspace);
    },
  };
});

describe('Herald on a secured Cassandra', () => {
  const keyspaces: string[] = [];
  afterAll(async () => {
    // The test user may drop only what it created: the keyspaces of the refusals were never made.
    for (const keyspace of keyspaces) if (await keyspaceExists(keyspace)) await dropSecuredKeyspace(keyspace);
  });

  /** Opening with the environment changed by `change` fails; answers the error and checks that no keyspace was made. */
  async function refusal(change: (env: Record<string, string | undefined>) => void): Promise<BackendStartError> {
    const keyspace = testKeyspace();
    keyspaces.push(keyspace);
    const env: Record<string, string | undefined> = securedEnv(keyspace);
    change(env);
    const error = await open(env).then(
      (store) => store.close().then(() => expect.fail('the store opened')),
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(BackendStartError);
    expect(await keyspaceExists(keyspace)).toBe(false);
    return error as BackendStartError;
  }

  it('names the certificate by the server name it carries when that is not the host dialled', async () => {
    const keyspace = testKeyspace();
    keyspaces.push(keyspace);
    const store = await open({ ...securedEnv(keyspace), HERALD_CASSANDRA_TLS_SERVER_NAME: 'herald-services.test' });
    await store.close();
    expect(await keyspaceExists(keyspace)).toBe(true);
  });

  it('refuses to start on a wrong password, naming Cassandra and the reason, and creates nothing', async () => {
    const error = await refusal((env) => {
      delete env.HERALD_CASSANDRA_PASSWORD_FILE;
      env.HERALD_CASSANDRA_PASSWORD = 'not-the-password';
    });
    expect(error.message).toBe(
      `Cassandra at ${securedEndpoints.cassandra.contactPoints[0]}: authentication failed (Provided username ${credentials.cassandra.username} and/or password are incorrect)`,
    );
  });

  it("refuses to start when the node's certificate is signed by a CA Herald was not given", async () => {
    const error = await refusal((env) => (env.HERALD_CASSANDRA_TLS_CA_FILE = tls.untrustedCaCert));
    expect(error.message).toMatch(/^Cassandra at 127\.0\.0\.1:\d+: TLS: the server's certificate is not signed by a CA Herald trusts; give the CA file that signed it \(unable to verify the first certificate/);
  });

  it("refuses to start when the node's certificate is checked against the system's CAs alone", async () => {
    const error = await refusal((env) => {
      delete env.HERALD_CASSANDRA_TLS_CA_FILE;
    });
    expect(error.message).toContain("TLS: the server's certificate is not signed by a CA Herald trusts");
  });

  it('refuses to start when the certificate does not carry the server name given', async () => {
    const error = await refusal((env) => (env.HERALD_CASSANDRA_TLS_SERVER_NAME = 'cassandra.example.com'));
    expect(error.message).toMatch(/^Cassandra at 127\.0\.0\.1:\d+: TLS: the server's certificate does not carry the name Herald dialled; .*Host: cassandra\.example\.com/);
  });

  it('refuses to start without a client certificate where the node requires one', async () => {
    const error = await refusal((env) => {
      delete env.HERALD_CASSANDRA_TLS_CERT_FILE;
      delete env.HERALD_CASSANDRA_TLS_KEY_FILE;
    });
    expect(error.message).toMatch(/^Cassandra at 127\.0\.0\.1:\d+: TLS: the server requires a client certificate; give a certificate and key \(tlsv13 alert certificate required\)$/);
  });

  it('refuses to start with a client certificate the node does not trust', async () => {
    const error = await refusal((env) => {
      env.HERALD_CASSANDRA_TLS_CERT_FILE = tls.untrustedClientCert;
      env.HERALD_CASSANDRA_TLS_KEY_FILE = tls.untrustedClientKey;
    });
    expect(error.message).toMatch(/^Cassandra at 127\.0\.0\.1:\d+: TLS: the server refused the handshake, most likely the client certificate/);
  });

  it('refuses to start speaking plain CQL to the TLS port', async () => {
    const error = await refusal((env) => {
      for (const name of Object.keys(env)) if (name.startsWith('HERALD_CASSANDRA_TLS_')) delete env[name];
    });
    expect(error.message).toMatch(/^Cassandra at 127\.0\.0\.1:\d+: the server closed the connection before answering: a port that wants TLS \(or SASL\) spoken to without it\?/);
  });

  it('refuses to start speaking TLS to a port without it', async () => {
    const keyspace = testKeyspace();
    const env = { ...securedEnv(keyspace), HERALD_CASSANDRA_CONTACT_POINTS: serviceEndpoints.cassandra.contactPoints.join(',') };
    await expect(open(env)).rejects.toThrow(/^Cassandra at 127\.0\.0\.1:\d+: TLS: the server does not speak TLS on this port; turn TLS off or dial its TLS port \(wrong version number\)$/);
  });

  it('refuses to start when a TLS file cannot be used, naming the variable', async () => {
    const notPem = path.join(dataDir, 'not-a-certificate.pem');
    writeFileSync(notPem, 'hello');
    await expect(open({ ...securedEnv(testKeyspace()), HERALD_CASSANDRA_TLS_CA_FILE: notPem })).rejects.toThrow(
      `HERALD_CASSANDRA_TLS_CA_FILE (store.tls.caFile): ${notPem} holds no PEM certificate`,
    );
    await expect(open({ ...securedEnv(testKeyspace()), HERALD_CASSANDRA_TLS_KEY_FILE: tls.untrustedClientKey })).rejects.toThrow(
      'HERALD_CASSANDRA_TLS_KEY_FILE (store.tls.keyFile): the private key does not belong to the client certificate',
    );
  });

  it('makes herald migrate exit 1 with the reason, the password never printed', async () => {
    const keyspace = testKeyspace();
    keyspaces.push(keyspace);
    const env = { ...securedEnv(keyspace), HERALD_CASSANDRA_PASSWORD_FILE: '', HERALD_CASSANDRA_PASSWORD: 'wrong-secret-123' };
    const { code, output } = await runHeraldCommand(['migrate'], env);
    expect(code).toBe(1);
    expect(output).toContain(`herald failed to start: Cassandra at ${securedEndpoints.cassandra.contactPoints[0]}: authentication failed (Provided username`);
    expect(output).not.toContain('wrong-secret-123');
    expect(await keyspaceExists(keyspace)).toBe(false);
  });
});
