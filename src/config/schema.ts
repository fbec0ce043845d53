import { z } from 'zod';
import { busSchema, coordinationSchema, storeSchema } from './backends-schema.ts';
import { consoleSchema } from './console-schema.ts';
import { appDeliveryLogSchema } from './delivery-log-schema.ts';
import { appPushSchema } from './push-gateways-schema.ts';
import { pushEngineSchema } from './push-schema.ts';
import { appWebhooksSchema } from './webhooks-schema.ts';

/** Rules for queries and deletes on a built-in class by ordinary-key callers. */
function classPermissionsSchema(defaults: { find: boolean; delete: boolean }) {
  return z
    .object({
      find: z.boolean().default(defaults.find).describe('ordinary-key callers may query the class'),
      delete: z.boolean().default(defaults.delete).describe('ordinary-key callers may delete objects they may write'),
    })
    .strict()
    .default(defaults);
}

/** Limits on SMS codes: guessing one, and making Herald send many (SMS pumping). */
const smsCodeLimitsSchema = z
  .object({
    maxAttempts: z.number().int().min(1).max(20).default(5).describe('wrong tries after which a code stops working'),
    numberFailuresPerHour: z.number().int().min(1).max(1000).default(10).describe('wrong codes for one number within an hour before its codes are refused for an hour'),
    perNumberPerDay: z.number().int().min(1).max(1000).default(10).describe('codes sent to one number within 24 hours'),
    perAppPerHour: z.number().int().min(1).default(1000).describe('codes the app sends within an hour'),
    perAppPerDay: z.number().int().min(1).default(10_000).describe('codes the app sends within 24 hours'),
  })
  .strict()
  .default({ maxAttempts: 5, numberFailuresPerHour: 10, perNumberPerDay: 10, perAppPerHour: 1000, perAppPerDay: 10_000 });

const appleSignInSchema = z
  .object({
    verify: z.boolean().default(true).describe('verify identity_token: signature, issuer, audience, subject and expiry'),
    bundleIds: z.array(z.string().min(1)).default([]).describe('accepted audiences of identity_token: the app\'s bundle ids'),
    jwksUrl: z.url().default('https://appleid.apple.com/auth/keys').describe('where the signing keys are fetched (cached)'),
    issuer: z.string().min(1).default('https://appleid.apple.com'),
  })
  .strict();

/** Which third-party credentials Herald checks, and how. */
const authDataChecksSchema = z
  .object({
    svc_apple: appleSignInSchema.default(appleSignInSchema.parse({})),
    validationUrls: z
      .record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_]{0,63}$/, 'a platform key'), z.url())
      .default({})
      .describe('per platform: a URL that is POSTed {platform, authData} and answers 2xx when the access token is good'),
  })
  .strict()
  .default({ svc_apple: appleSignInSchema.parse({}), validationUrls: {} });

export const appSettingsSchema = z
  .object({
    emailVerification: z.boolean().default(false).describe('send a verification link when an email is set; new users start with emailVerified false'),
    refuseUnverifiedEmailLogin: z.boolean().default(false).describe('refuse login (216) while emailVerified is not true'),
    forceReloginAfterPasswordChange: z.boolean().default(false).describe('issue a new session token when a user changes the password'),
    clientPushAllowed: z.boolean().default(false).describe('let ordinary-key callers send pushes'),
    passwordResetTtlSeconds: z.number().int().min(60).max(7 * 24 * 3600).default(3600).describe('lifetime of password reset links'),
    smsCodes: smsCodeLimitsSchema,
    protectedFields: z
      .record(z.string().regex(/^_?[A-Za-z][A-Za-z0-9_]{0,63}$/, 'a class name'), z.array(z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,127}$/, 'a field name')))
      .default({ _User: ['email', 'mobilePhoneNumber'] })
      .describe('fields of each class hidden from everyone but the object itself (a user) and the master key, who alone may query or sort on them'),
    authData: authDataChecksSchema,
    classPermissions: z
      .object({
        // Users delete themselves with their own session unless the app turns that off.
        _User: classPermissionsSchema({ find: false, delete: true }),
        _Installation: classPermissionsSchema({ find: false, delete: false }),
      })
      .strict()
      .default({ _User: { find: false, delete: true }, _Installation: { find: false, delete: false } }),
    deliveryLog: appDeliveryLogSchema.default({}).describe("this app's delivery log: retention and what is kept of delivered devices; unset keys follow push.deliveryLog"),
  })
  .strict();

const smtpSchema = z
  .object({
    host: z.string().min(1),
    port: z.number().int().min(1).max(65535).default(587),
    secure: z.boolean().default(false).describe('TLS from the start (port 465); otherwise STARTTLS when offered'),
    user: z.string().optional(),
    pass: z.string().optional(),
    rejectUnauthorized: z.boolean().default(true),
  })
  .strict();

const mailSchema = z
  .object({
    from: z.string().min(3).default('Herald <no-reply@localhost>'),
    /** Absent: mail is written to the outbox folder in the data directory and the link is logged. */
    smtp: smtpSchema.optional(),
  })
  .strict();

const smsSchema = z
  .object({
    /** Absent: codes are written to the outbox folder and logged. */
    webhookUrl: z.url().optional().describe('the code is POSTed as JSON {to, code, text} to this URL'),
    webhookToken: z.string().optional().describe('sent as a Bearer token to the webhook'),
  })
  .strict();

const appIdPattern = /^[A-Za-z0-9_-]{1,64}$/;

export const appSchema = z
  .object({
    id: z.string().regex(appIdPattern, 'letters, digits, _ and -, at most 64 characters'),
    name: z.string().min(1).optional(),
    key: z.string().min(8, 'at least 8 characters').max(256).refine((k) => !k.includes(','), 'must not contain a comma'),
    masterKey: z.string().min(8, 'at least 8 characters').max(256).refine((k) => !k.includes(','), 'must not contain a comma'),
    settings: appSettingsSchema.default(appSettingsSchema.parse({})),
    mail: mailSchema.default(mailSchema.parse({})),
    sms: smsSchema.default({}),
    push: appPushSchema.default({}).describe('APNs and FCM credentials of the app'),
    webhooks: appWebhooksSchema.default([]).describe("endpoints that receive the app's push and delivery events, signed (docs/webhooks.md)"),
  })
  .strict()
  .refine((app) => app.key !== app.masterKey, { message: 'the master key must differ from the app key', path: ['masterKey'] });

export const defaultDataDir = './data';

/** The roles a process can run; `all` is every one of them. */
export const roleNames = ['api', 'fanout', 'sender', 'scheduler', 'all'] as const;

export type RoleName = Exclude<(typeof roleNames)[number], 'all'>;

/** Start order: the consumers before the API that feeds them, the scheduler last. */
export const roleOrder: readonly RoleName[] = ['sender', 'fanout', 'api', 'scheduler'];

const roleListPattern = new RegExp(`^(${roleNames.join('|')})(,(${roleNames.join('|')}))*$`);

/** The roles named by a `role` setting such as `api,sender`, in start order. */
export function rolesOf(role: string): RoleName[] {
  const named = new Set(role.split(','));
  return roleOrder.filter((name) => named.has('all') || named.has(name));
}

/**
 * The api role's gRPC port (docs/grpc.md): a number (0 picks a free port), or
 * `off` for no gRPC server. Environment variables are text, so digits are
 * read as a number here.
 */
const grpcPortSchema = z
  .preprocess(
    (value) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value),
    z.union([z.number().int().min(0).max(65535), z.literal('off')], { error: 'a port number from 0 to 65535, or off' }),
  )
  .default(50051)
  .describe('port of the gRPC API served by the api role; 0 picks a free port, off serves none');

/**
 * The header prefixes Herald can read: its own `X-SVC-*`, and the `X-LC-*`
 * that the hosted service's shipped SDKs send (so apps keep working unchanged).
 */
export const headerPrefixes = ['X-SVC', 'X-LC'] as const;
export type HeaderPrefix = (typeof headerPrefixes)[number];

const authSchema = z
  .object({
    headerPrefixes: z
      .array(z.enum(headerPrefixes))
      .min(1)
      .default([...headerPrefixes])
      .describe('header prefixes read for the app id, key, signature, session and prod: X-SVC, and X-LC as the hosted service SDKs send'),
    signatureWindowSeconds: z
      .number()
      .int()
      .min(1)
      .max(86_400)
      .default(900)
      .describe("how far a signed request's timestamp may be from the server's clock"),
  })
  .strict();

export const configSchema = z
  .object({
    role: z
      .string()
      .regex(roleListPattern, `one or more of ${roleNames.join(', ')}, comma-separated`)
      .default('all')
      .describe('roles this process runs'),
    port: z.number().int().min(0).max(65535).default(3000),
    host: z.string().min(1).default('0.0.0.0'),
    internalPort: z
      .number()
      .int()
      .min(0)
      .max(65535)
      .optional()
      .describe('when set, /metrics, /healthz and /readyz are served on this port only, never on the public one'),
    internalHost: z.string().min(1).optional().describe('address of the internal port; default: the same as host'),
    grpcPort: grpcPortSchema,
    grpcWatchIntervalMs: z
      .number()
      .int()
      .min(100)
      .max(60_000)
      .default(500)
      .describe('how often a gRPC WatchPush reads the watched push record'),
    publicUrl: z.url().optional().describe('base URL of links in emails; default http://localhost:<port>'),
    dataDir: z.string().min(1).default(defaultDataDir),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    bodyLimitBytes: z.number().int().min(1024).max(64 * 1024 * 1024).default(1024 * 1024),
    store: storeSchema,
    coordination: coordinationSchema,
    bus: busSchema,
    push: pushEngineSchema.default(pushEngineSchema.parse({})),
    auth: authSchema.default(authSchema.parse({})),
    apps: z.array(appSchema).default([]),
    console: consoleSchema.default(consoleSchema.parse({})).describe('the web console: accounts, port, sessions (docs/console.md)'),
  })
  .strict()
  .superRefine((config, ctx) => {
    const seen = new Set<string>();
    config.apps.forEach((app, index) => {
      if (seen.has(app.id)) ctx.addIssue({ code: 'custom', message: `duplicate app id ${app.id}`, path: ['apps', index, 'id'] });
      seen.add(app.id);
    });
    config.console.accounts.forEach((account, index) => {
      account.apps.forEach((appId, at) => {
        if (appId !== '*' && !seen.has(appId)) ctx.addIssue({ code: 'custom', message: `no app ${appId} is configured`, path: ['console', 'accounts', index, 'apps', at] });
      });
    });
  });

export type RawConfig = z.input<typeof configSchema>;
export type AppSettings = z.output<typeof appSettingsSchema>;
export type AppConfig = z.output<typeof appSchema>;
export type AuthConfig = z.output<typeof authSchema>;
export type SmtpConfig = z.output<typeof smtpSchema>;

/** The name people see in mails and pages: the app's name, else its id. */
export function appDisplayName(app: Pick<AppConfig, 'id' | 'name'>): string {
  return app.name ?? app.id;
}

export interface HeraldConfig extends Omit<z.output<typeof configSchema>, 'publicUrl'> {
  publicUrl: string;
}

/**
 * Environment variables and where they land in the config. The single-app
 * variables (`HERALD_APP_*` and the settings below them) describe `apps[0]`
 * when no config file declares apps.
 */
export const envVariables = {
  PORT: { path: ['port'], type: 'int', help: 'HTTP port' },
  HOST: { path: ['host'], type: 'string', help: 'address to listen on' },
  HERALD_ROLE: { path: ['role'], type: 'string', help: `roles to run, comma-separated: ${roleNames.join(', ')}` },
  HERALD_INTERNAL_PORT: { path: ['internalPort'], type: 'int', help: 'serve /metrics, /healthz and /readyz on this port only (not on PORT)' },
  HERALD_INTERNAL_HOST: { path: ['internalHost'], type: 'string', help: 'address of the internal port (default: HOST)' },
  HERALD_GRPC_PORT: { path: ['grpcPort'], type: 'string', help: 'port of the gRPC API of the api role (default 50051; 0 picks a free one; off serves none)' },
  HERALD_CONSOLE: { path: ['console', 'enabled'], type: 'bool', help: 'serve the web console (default true; accounts in the config file, docs/console.md)' },
  HERALD_CONSOLE_PORT: { path: ['console', 'port'], type: 'int', help: 'serve the console on this port only, not at /console on PORT' },
  HERALD_CONSOLE_HOST: { path: ['console', 'host'], type: 'string', help: 'address of the console port (default: HOST)' },
  HERALD_CONSOLE_TRUST_PROXY: { path: ['console', 'trustProxy'], type: 'string', help: 'proxies to trust for X-Forwarded-Proto/-Host/-For: false (default), true or a number of hops' },
  HERALD_GRPC_WATCH_INTERVAL_MS: { path: ['grpcWatchIntervalMs'], type: 'int', help: 'how often a gRPC WatchPush reads the watched push record, in ms (default 500, at least 100)' },
  HERALD_PUBLIC_URL: { path: ['publicUrl'], type: 'string', help: 'base URL of links sent in email' },
  HERALD_DATA_DIR: { path: ['dataDir'], type: 'string', help: 'folder of the embedded store, outbox and development keys' },
  HERALD_LOG_LEVEL: { path: ['logLevel'], type: 'string', help: 'pino log level' },
  HERALD_AUTH_HEADER_PREFIXES: { path: ['auth', 'headerPrefixes'], type: 'list', help: 'header prefixes read, comma-separated: X-SVC, X-LC (default both)' },
  HERALD_SIGNATURE_WINDOW_SECONDS: { path: ['auth', 'signatureWindowSeconds'], type: 'int', help: "how far a signed request's timestamp may be from the server's clock (default 900)" },
  HERALD_BODY_LIMIT: { path: ['bodyLimitBytes'], type: 'int', help: 'largest accepted request body in bytes' },
  HERALD_STORE: { path: ['store', 'kind'], type: 'string', help: 'sqlite (embedded default) or cassandra' },
  HERALD_SQLITE_SYNC: { path: ['store', 'sqliteSync'], type: 'string', help: 'normal (default) or full: an fsync per SQLite commit, so even a power cut loses none' },
  HERALD_CASSANDRA_CONTACT_POINTS: { path: ['store', 'contactPoints'], type: 'list', help: 'Cassandra nodes, host:port, comma-separated' },
  HERALD_CASSANDRA_LOCAL_DC: { path: ['store', 'localDataCenter'], type: 'string', help: 'datacenter the driver treats as local' },
  HERALD_CASSANDRA_KEYSPACE: { path: ['store', 'keyspace'], type: 'string', help: 'keyspace, created by the migrations' },
  HERALD_CASSANDRA_REPLICATION: { path: ['store', 'replication'], type: 'replication', help: 'replication factor, or dc1:3,dc2:3 per datacenter' },
  HERALD_CASSANDRA_READ_CONSISTENCY: { path: ['store', 'consistency', 'read'], type: 'string', help: 'consistency of reads: LOCAL_QUORUM (default), QUORUM, EACH_QUORUM or ALL' },
  HERALD_CASSANDRA_WRITE_CONSISTENCY: { path: ['store', 'consistency', 'write'], type: 'string', help: 'consistency of writes: LOCAL_QUORUM (default), QUORUM, EACH_QUORUM or ALL' },
  HERALD_CASSANDRA_SERIAL_CONSISTENCY: { path: ['store', 'consistency', 'serial'], type: 'string', help: 'Paxos of lightweight transactions: LOCAL_SERIAL (default) or SERIAL' },
  HERALD_CASSANDRA_USERNAME: { path: ['store', 'username'], type: 'string', help: 'Cassandra user (password authenticator)' },
  HERALD_CASSANDRA_PASSWORD: { path: ['store', 'password'], type: 'string', help: 'Cassandra password' },
  HERALD_CASSANDRA_PASSWORD_FILE: { path: ['store', 'passwordFile'], type: 'string', help: 'file holding the Cassandra password, instead of HERALD_CASSANDRA_PASSWORD' },
  HERALD_CASSANDRA_TLS: { path: ['store', 'tls', 'enabled'], type: 'bool', help: "TLS to Cassandra, checked against the system's CAs (any HERALD_CASSANDRA_TLS_* variable turns it on)" },
  HERALD_CASSANDRA_TLS_CA_FILE: { path: ['store', 'tls', 'caFile'], type: 'string', help: "PEM file of the CA that signed Cassandra's certificates" },
  HERALD_CASSANDRA_TLS_CERT_FILE: { path: ['store', 'tls', 'certFile'], type: 'string', help: 'PEM client certificate, for nodes that require one (with HERALD_CASSANDRA_TLS_KEY_FILE)' },
  HERALD_CASSANDRA_TLS_KEY_FILE: { path: ['store', 'tls', 'keyFile'], type: 'string', help: "PEM file of the client certificate's private key" },
  HERALD_CASSANDRA_TLS_SERVER_NAME: { path: ['store', 'tls', 'serverName'], type: 'string', help: "name Cassandra's certificates carry, when not the contact point's host" },
  HERALD_COORDINATION: { path: ['coordination', 'kind'], type: 'string', help: 'memory (embedded default) or redis' },
  HERALD_REDIS_URL: {
    path: ['coordination', 'url'],
    type: 'string',
    help: 'redis[s]://[:password@]host:port[/db]; selects Redis, which must persist (appendonly yes): account locks live there',
  },
  HERALD_REDIS_USERNAME: { path: ['coordination', 'username'], type: 'string', help: 'Redis ACL user (instead of one in the URL)' },
  HERALD_REDIS_PASSWORD: { path: ['coordination', 'password'], type: 'string', help: 'Redis password (instead of one in the URL)' },
  HERALD_REDIS_PASSWORD_FILE: { path: ['coordination', 'passwordFile'], type: 'string', help: 'file holding the Redis password' },
  HERALD_REDIS_TLS_CA_FILE: { path: ['coordination', 'tls', 'caFile'], type: 'string', help: "PEM file of the CA that signed Redis's certificate (TLS itself: a rediss:// URL)" },
  HERALD_REDIS_TLS_CERT_FILE: { path: ['coordination', 'tls', 'certFile'], type: 'string', help: 'PEM client certificate, for a Redis that asks for one (with HERALD_REDIS_TLS_KEY_FILE)' },
  HERALD_REDIS_TLS_KEY_FILE: { path: ['coordination', 'tls', 'keyFile'], type: 'string', help: "PEM file of the client certificate's private key" },
  HERALD_REDIS_TLS_SERVER_NAME: { path: ['coordination', 'tls', 'serverName'], type: 'string', help: "name Redis's certificate carries, when not the URL's host" },
  HERALD_BUS: { path: ['bus', 'kind'], type: 'string', help: 'memory (embedded default) or kafka' },
  HERALD_KAFKA_BROKERS: { path: ['bus', 'brokers'], type: 'list', help: 'Kafka brokers, host:port, comma-separated; selects Kafka' },
  HERALD_KAFKA_TOPIC_PREFIX: { path: ['bus', 'topicPrefix'], type: 'string', help: 'put before topic and consumer group names (several deployments on one Kafka)' },
  HERALD_KAFKA_SESSION_TIMEOUT_MS: { path: ['bus', 'sessionTimeoutMs'], type: 'int', help: 'a sender or fan-out silent this long loses its partitions to the others' },
  HERALD_KAFKA_TLS: { path: ['bus', 'tls', 'enabled'], type: 'bool', help: "TLS to the brokers, checked against the system's CAs (any HERALD_KAFKA_TLS_* variable turns it on)" },
  HERALD_KAFKA_TLS_CA_FILE: { path: ['bus', 'tls', 'caFile'], type: 'string', help: "PEM file of the CA that signed the brokers' certificates" },
  HERALD_KAFKA_TLS_CERT_FILE: { path: ['bus', 'tls', 'certFile'], type: 'string', help: 'PEM client certificate, for brokers that require one (with HERALD_KAFKA_TLS_KEY_FILE)' },
  HERALD_KAFKA_TLS_KEY_FILE: { path: ['bus', 'tls', 'keyFile'], type: 'string', help: "PEM file of the client certificate's private key" },
  HERALD_KAFKA_TLS_SERVER_NAME: { path: ['bus', 'tls', 'serverName'], type: 'string', help: "name the brokers' certificates carry, when not the broker's host" },
  HERALD_KAFKA_SASL_MECHANISM: { path: ['bus', 'sasl', 'mechanism'], type: 'string', help: 'SASL to the brokers: plain, scram-sha-256 or scram-sha-512' },
  HERALD_KAFKA_SASL_USERNAME: { path: ['bus', 'sasl', 'username'], type: 'string', help: 'SASL user (an API key on Confluent Cloud)' },
  HERALD_KAFKA_SASL_PASSWORD: { path: ['bus', 'sasl', 'password'], type: 'string', help: 'SASL password (an API secret on Confluent Cloud)' },
  HERALD_KAFKA_SASL_PASSWORD_FILE: { path: ['bus', 'sasl', 'passwordFile'], type: 'string', help: 'file holding the SASL password, instead of HERALD_KAFKA_SASL_PASSWORD' },
  HERALD_KAFKA_REPLICATION_FACTOR: { path: ['bus', 'replicationFactor'], type: 'int', help: 'replicas of each topic Herald creates (default 3, or the brokers when fewer)' },
  HERALD_KAFKA_MIN_INSYNC_REPLICAS: { path: ['bus', 'minInsyncReplicas'], type: 'int', help: 'min.insync.replicas of the topics Herald creates (default 2 at replication 3 or more, else 1)' },
  HERALD_KAFKA_IDEMPOTENT_PRODUCER: { path: ['bus', 'idempotentProducer'], type: 'bool', help: 'idempotent producer, each retried batch written once (default true)' },
  HERALD_KAFKA_MAX_IN_FLIGHT_REQUESTS: { path: ['bus', 'maxInFlightRequests'], type: 'int', help: 'produce requests in flight at once, 1 to 5 (default 5)' },
  HERALD_PUSH_REQUEST_PARTITIONS: { path: ['bus', 'topics', 'pushRequests'], type: 'int', help: 'partitions of the push.requests topic when it is created' },
  HERALD_PUSH_TASK_PARTITIONS: { path: ['bus', 'topics', 'pushTasks'], type: 'int', help: 'partitions of the push.tasks topic when it is created' },
  HERALD_PUSH_OUTCOME_PARTITIONS: { path: ['bus', 'topics', 'pushOutcomes'], type: 'int', help: 'partitions of the push.outcomes topic (the outcome stream) when it is created' },
  HERALD_OUTCOME_STREAM: { path: ['push', 'outcomeStream', 'enabled'], type: 'bool', help: 'produce delivery events on push.outcomes, with Kafka (default false)' },
  HERALD_APP_ID: { path: ['app', 'id'], type: 'string', help: 'id of the single app' },
  HERALD_APP_KEY: { path: ['app', 'key'], type: 'string', help: 'app key of the single app' },
  HERALD_MASTER_KEY: { path: ['app', 'masterKey'], type: 'string', help: 'master key of the single app' },
  HERALD_EMAIL_VERIFICATION: { path: ['app', 'settings', 'emailVerification'], type: 'bool', help: 'verify email addresses' },
  HERALD_REFUSE_UNVERIFIED_EMAIL_LOGIN: { path: ['app', 'settings', 'refuseUnverifiedEmailLogin'], type: 'bool', help: 'refuse login until the email is verified' },
  HERALD_FORCE_RELOGIN_AFTER_PASSWORD_CHANGE: { path: ['app', 'settings', 'forceReloginAfterPasswordChange'], type: 'bool', help: 'new session token on password change' },
  HERALD_CLIENT_PUSH_ALLOWED: { path: ['app', 'settings', 'clientPushAllowed'], type: 'bool', help: 'let clients send pushes' },
  HERALD_USER_FIND_ALLOWED: { path: ['app', 'settings', 'classPermissions', '_User', 'find'], type: 'bool', help: 'let clients query users' },
  HERALD_MAIL_FROM: { path: ['app', 'mail', 'from'], type: 'string', help: 'sender address of account emails' },
  HERALD_SMTP_URL: { path: ['app', 'mail', 'smtp'], type: 'smtp-url', help: 'smtp[s]://user:pass@host:port; unset writes mail to the outbox' },
  HERALD_SMS_WEBHOOK_URL: { path: ['app', 'sms', 'webhookUrl'], type: 'string', help: 'URL that sends SMS codes; unset writes them to the outbox' },
  HERALD_WEBHOOK_URL: { path: ['app', 'webhooks', '0', 'url'], type: 'string', help: "endpoint that receives the single app's push and delivery events (https://, or http:// to the loopback address)" },
  HERALD_WEBHOOK_SECRET: { path: ['app', 'webhooks', '0', 'secret'], type: 'string', help: 'signing secret of HERALD_WEBHOOK_URL' },
  HERALD_WEBHOOK_SECRET_FILE: { path: ['app', 'webhooks', '0', 'secretFile'], type: 'string', help: 'file holding the signing secret of HERALD_WEBHOOK_URL, instead of HERALD_WEBHOOK_SECRET' },
  HERALD_WEBHOOK_EVENTS: { path: ['app', 'webhooks', '0', 'events'], type: 'list', help: 'events HERALD_WEBHOOK_URL takes, comma-separated (default push.done,delivery.failed,installation.removed)' },
} as const satisfies Record<string, { path: readonly string[]; type: 'int' | 'string' | 'bool' | 'smtp-url' | 'list' | 'replication'; help: string }>;

export type EnvName = keyof typeof envVariables;
