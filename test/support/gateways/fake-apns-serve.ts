import { createPrivateKey } from 'node:crypto';
import { SignJWT } from 'jose';
import { FakeApns } from './fake-apns.ts';
import { testPki } from './test-pki.ts';

/**
 * Runs a fake APNs on its own, for `h2load` and manual checks:
 *
 *   node test/support/gateways/fake-apns-serve.ts [port] [--max-streams N] [--full]
 *
 * Prints the endpoint, a provider token it accepts and an `h2load` command,
 * then counts; SIGINT or SIGTERM prints the totals and stops it.
 */
const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const index = args.indexOf(name);
  return index === -1 ? undefined : args[index + 1];
};
const port = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 0);
const pki = await testPki();
const fake = await FakeApns.start({
  cert: pki.server.certPem,
  key: pki.server.keyPem,
  clientCa: [pki.ca.certPem],
  keys: [{ keyId: pki.apns.key.keyId, teamId: pki.apns.teamId, publicKey: pki.apns.key.publicKey }],
  maxConcurrentStreams: Number(flag('--max-streams') ?? 1000),
  record: args.includes('--full') ? 'full' : 'count',
  port,
});
const jwt = await new SignJWT({})
  .setProtectedHeader({ alg: 'ES256', kid: pki.apns.key.keyId })
  .setIssuer(pki.apns.teamId)
  .setIssuedAt()
  .sign(createPrivateKey(pki.apns.key.pem));
const token = 'a1'.repeat(32);
const out = (line: string): boolean => process.stdout.write(`${line}\n`);
out(JSON.stringify({ origin: fake.origin, port: fake.port, caFile: pki.ca.certFile, topic: pki.apns.topic, authorization: `bearer ${jwt}` }));
out(
  `h2load -n 100000 -c 4 -m 100 -H 'authorization: bearer ${jwt}' -H 'apns-topic: ${pki.apns.topic}' -H 'apns-push-type: alert' ` +
    `-d <payload.json> ${fake.origin}/3/device/${token}`,
);
const stop = (): void => {
  const { log } = fake;
  out(JSON.stringify({ requests: log.requestCount, deliveries: log.deliveryCount, distinctTokens: log.distinctTokens, stats: fake.stats }));
  void fake.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
