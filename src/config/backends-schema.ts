import { z } from 'zod';
import { cassandraConsistencyDefaults, readWriteLevels, serialLevels } from './cassandra-consistency.ts';

/**
 * Where state lives: the embedded default (SQLite, in-memory coordination,
 * in-process bus) or the distributed services (Cassandra, Redis, Kafka).
 * A backend's kind may be left out when its connection setting is given:
 * `HERALD_REDIS_URL` alone selects Redis.
 */

const hostPort = z.string().regex(/^[^\s:,]+(:\d{1,5})?$/, 'expected host or host:port');

const filePath = z.string().min(1);

/**
 * TLS to a backend. The server's certificate is always verified, against the
 * CA file when one is given, else the system's CAs; nothing turns that off.
 * Any setting here turns TLS on (Redis takes it from a rediss:// URL).
 */
const tlsSchema = z.preprocess(
  (raw) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
    const object = raw as Record<string, unknown>;
    return object.enabled === undefined && Object.keys(object).length > 0 ? { ...object, enabled: true } : raw;
  },
  z
    .object({
      enabled: z.boolean().default(false).describe('speak TLS to the backend; set by any other TLS setting'),
      caFile: filePath.optional().describe("PEM file of the CA certificates the server's certificate must chain to; default: the system's CAs"),
      certFile: filePath.optional().describe('PEM file of a client certificate, for servers that require one (with keyFile)'),
      keyFile: filePath.optional().describe("PEM file of the client certificate's private key, unencrypted"),
      serverName: z
        .string()
        .min(1)
        .optional()
        .describe("the name the server's certificate must carry (and the SNI sent) when it is not the host Herald dials"),
    })
    .strict()
    .superRefine((tls, ctx) => {
      if (!tls.enabled && Object.keys(tls).length > 1) ctx.addIssue({ code: 'custom', message: 'TLS settings are given but TLS is turned off', path: ['enabled'] });
      if ((tls.certFile === undefined) !== (tls.keyFile === undefined)) {
        ctx.addIssue({ code: 'custom', message: 'a client certificate needs both certFile and keyFile', path: [tls.certFile === undefined ? 'certFile' : 'keyFile'] });
      }
    }),
);

export type TlsConfig = z.output<typeof tlsSchema>;

const tlsOff: TlsConfig = { enabled: false };

/** A password given once: in the config (or its variable), or as a file to read at start. */
function onePassword(backend: { password?: string; passwordFile?: string }, ctx: z.RefinementCtx): void {
  if (backend.password !== undefined && backend.passwordFile !== undefined) {
    ctx.addIssue({ code: 'custom', message: 'give the password or a password file, not both', path: ['passwordFile'] });
  }
}

/** SASL to Kafka: PLAIN (meant for TLS: without it the password crosses the network as it is, and Herald warns) or SCRAM. */
const saslSchema = z
  .object({
    mechanism: z.enum(['plain', 'scram-sha-256', 'scram-sha-512']).describe('plain, scram-sha-256 or scram-sha-512'),
    username: z.string().min(1),
    password: z.string().min(1).optional(),
    passwordFile: filePath.optional().describe('file holding the password (one trailing newline is ignored)'),
  })
  .strict()
  .superRefine((sasl, ctx) => {
    onePassword(sasl, ctx);
    if (sasl.password === undefined && sasl.passwordFile === undefined) ctx.addIssue({ code: 'custom', message: 'required: the SASL password', path: ['password'] });
  });

export type SaslConfig = z.output<typeof saslSchema>;

/** A keyspace replication: a factor (SimpleStrategy) or per-datacenter factors (NetworkTopologyStrategy). */
const replicationSchema = z.union([
  z.number().int().min(1).max(15),
  z.record(z.string().min(1), z.number().int().min(1).max(15)).refine((dcs) => Object.keys(dcs).length > 0, 'name at least one datacenter'),
]);

export const storeSchema = z.preprocess(
  (raw) => withInferredKind(raw, 'contactPoints', 'cassandra'),
  z
    .object({
      kind: z.enum(['sqlite', 'cassandra']).default('sqlite'),
      contactPoints: z.array(hostPort).min(1).optional().describe('Cassandra nodes, host:port'),
      localDataCenter: z.string().min(1).default('datacenter1'),
      keyspace: z
        .string()
        .regex(/^[a-z][a-z0-9_]{0,47}$/, 'lower-case letters, digits and _, starting with a letter')
        .default('herald'),
      replication: replicationSchema.default(1).describe('replication factor, or factors per datacenter'),
      username: z.string().min(1).optional().describe('role for the password authenticator'),
      password: z.string().min(1).optional(),
      passwordFile: filePath.optional().describe('file holding the password (one trailing newline is ignored)'),
      tls: tlsSchema.default(tlsOff),
      requestTimeoutMs: z.number().int().min(100).max(120_000).default(5000),
      consistency: z
        .object({
          read: z.enum(readWriteLevels).default(cassandraConsistencyDefaults.read).describe('every read: LOCAL_QUORUM (default), QUORUM, EACH_QUORUM or ALL'),
          write: z.enum(readWriteLevels).default(cassandraConsistencyDefaults.write).describe('every write: LOCAL_QUORUM (default), QUORUM, EACH_QUORUM or ALL'),
          serial: z
            .enum(serialLevels)
            .default(cassandraConsistencyDefaults.serial)
            .describe('Paxos of the lightweight transactions (unique claims, revisions): LOCAL_SERIAL (default) or SERIAL'),
        })
        .strict()
        .default({ ...cassandraConsistencyDefaults })
        .describe('Cassandra consistency levels; majorities only, so that every read sees every acknowledged write (docs/cassandra-store.md)'),
      sqliteSync: z
        .enum(['normal', 'full'])
        .default('normal')
        .describe(
          'SQLite only: "full" makes every commit survive a power cut or OS crash (an fsync per commit); "normal" keeps the database consistent but may lose the last commits to a power cut or OS crash, never to a Herald crash',
        ),
    })
    .strict()
    .superRefine(requiredFor('cassandra', 'contactPoints', 'the store is cassandra'))
    .superRefine((store, ctx) => {
      onePassword(store, ctx);
      if (store.username === undefined && (store.password !== undefined || store.passwordFile !== undefined)) {
        ctx.addIssue({ code: 'custom', message: 'a password needs a username', path: ['username'] });
      }
    }),
);

export const coordinationSchema = z.preprocess(
  (raw) => withInferredKind(raw, 'url', 'redis'),
  z
    .object({
      kind: z.enum(['memory', 'redis']).default('memory'),
      url: z
        .url()
        .refine((url) => /^rediss?:\/\//.test(url), 'expected redis:// or rediss://')
        .optional(),
      keyPrefix: z.string().max(64).default('herald:').describe('prefix of every Redis key Herald writes'),
      username: z.string().min(1).optional().describe('ACL user; default: the URL\'s, else the default user'),
      password: z.string().min(1).optional(),
      passwordFile: filePath.optional().describe('file holding the password (one trailing newline is ignored)'),
      tls: tlsSchema.default(tlsOff).describe('a rediss:// URL turns TLS on; these settings add a CA, a client certificate, a server name'),
    })
    .strict()
    .superRefine(requiredFor('redis', 'url', 'coordination is redis'))
    .superRefine((coordination, ctx) => {
      onePassword(coordination, ctx);
      if (coordination.url === undefined || !URL.canParse(coordination.url)) return;
      const url = new URL(coordination.url);
      const inUrl = url.username !== '' || url.password !== '';
      if (inUrl && (coordination.username !== undefined || coordination.password !== undefined || coordination.passwordFile !== undefined)) {
        ctx.addIssue({ code: 'custom', message: 'the URL carries credentials already; give them in one place', path: ['url'] });
      }
      if (coordination.tls.enabled && url.protocol !== 'rediss:') {
        ctx.addIssue({ code: 'custom', message: 'TLS settings need a rediss:// URL', path: ['url'] });
      }
    }),
);

export const busSchema = z.preprocess(
  (raw) => withInferredKind(raw, 'brokers', 'kafka'),
  z
    .object({
      kind: z.enum(['memory', 'kafka']).default('memory'),
      brokers: z.array(hostPort).min(1).optional().describe('Kafka bootstrap brokers, host:port'),
      clientId: z.string().min(1).default('herald'),
      tls: tlsSchema.default(tlsOff),
      sasl: saslSchema.optional().describe('SASL authentication to the brokers'),
      topicPrefix: z
        .string()
        .regex(/^[A-Za-z0-9._-]{0,64}$/, 'letters, digits, ., _ and -')
        .default('')
        .describe('put before every topic name and consumer group, so that several Herald deployments can share a Kafka cluster'),
      sessionTimeoutMs: z
        .number()
        .int()
        .min(6000)
        .max(300_000)
        .default(30_000)
        .describe('(Kafka\'s group.min.session.timeout.ms is 6 s) a consumer that sends no heartbeat for this long is dropped and its partitions go to the others'),
      replicationFactor: z
        .number()
        .int()
        .min(1)
        .max(32)
        .optional()
        .describe('replicas of each topic Herald creates; default 3, or the number of brokers when fewer answer'),
      minInsyncReplicas: z
        .number()
        .int()
        .min(1)
        .max(32)
        .optional()
        .describe('min.insync.replicas of each topic Herald creates: replicas that must have a message before it is acknowledged (acks=all); default 2 at a replication factor of 3 or more, else 1'),
      idempotentProducer: z
        .boolean()
        .default(true)
        .describe('the producer numbers its batches so that a retried send is written once (Kafka idempotence); acks=all either way'),
      maxInFlightRequests: z
        .number()
        .int()
        .min(1)
        .max(5)
        .default(5)
        .describe('produce requests in flight at once (at most 5, which keeps an idempotent producer ordered)'),
      topics: z
        .object({
          pushRequests: z.number().int().min(1).max(1024).default(6).describe('partitions of push.requests'),
          pushTasks: z.number().int().min(1).max(4096).default(24).describe('partitions of push.tasks: the most sender actors that work at once'),
          pushOutcomes: z.number().int().min(1).max(4096).default(12).describe('partitions of push.outcomes, the outcome stream (Kafka only): the most consumers of one group that read it at once'),
        })
        .strict()
        .default({ pushRequests: 6, pushTasks: 24, pushOutcomes: 12 }),
    })
    .strict()
    .superRefine(requiredFor('kafka', 'brokers', 'the bus is kafka'))
    .superRefine((bus, ctx) => {
      if (bus.replicationFactor !== undefined && bus.minInsyncReplicas !== undefined && bus.minInsyncReplicas > bus.replicationFactor) {
        ctx.addIssue({ code: 'custom', message: 'min.insync.replicas above the replication factor would refuse every message', path: ['minInsyncReplicas'] });
      }
    }),
);

export type StoreConfig = z.output<typeof storeSchema>;
export type CoordinationConfig = z.output<typeof coordinationSchema>;
export type BusConfig = z.output<typeof busSchema>;

/** A refinement that requires the connection setting `field` when `kind` is chosen. */
function requiredFor<K extends string>(kind: K, field: string, when: string) {
  return (backend: { kind: string } & Record<string, unknown>, ctx: z.RefinementCtx): void => {
    if (backend.kind === kind && backend[field] === undefined) ctx.addIssue({ code: 'custom', message: `required when ${when}`, path: [field] });
  };
}

function withInferredKind(raw: unknown, connectionKey: string, kind: string): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw ?? {};
  const object = raw as Record<string, unknown>;
  if (object.kind === undefined && object[connectionKey] !== undefined) return { ...object, kind };
  return raw;
}
