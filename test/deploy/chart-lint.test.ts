import { describe, expect, it } from 'vitest';
import { ciValues, lintChart, templateChart, type CiValuesName, type RenderOptions } from './support/helm-chart.ts';

const valueSets: [string, RenderOptions][] = [
  ['the default values', {}],
  ...(Object.keys(ciValues) as CiValuesName[]).map((name): [string, RenderOptions] => [`ci/${name}-values.yaml`, { values: [ciValues[name]] }]),
];

describe('the Herald chart under helm lint --strict', () => {
  it.each(valueSets)('passes with %s', (_name, options) => {
    const result = lintChart(options);
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toContain('0 chart(s) failed');
    expect(result.stdout).not.toMatch(/\[(WARNING|ERROR)\]/);
  });

  it('fails on a value the schema refuses', () => {
    const result = lintChart({ set: ['api.replicas=-1'] });
    expect(result.status).not.toBe(0);
    expect(`${result.stdout}${result.stderr}`).toContain('api.replicas: Must be greater than or equal to 0');
  });
});

/** Each bad value, and the path and reason values.schema.json answers with. */
const schemaRefusals: { name: string; options: RenderOptions; message: string }[] = [
  { name: 'a negative replica count', options: { set: ['api.replicas=-1'] }, message: '- api.replicas: Must be greater than or equal to 0' },
  { name: 'a replica count that is not a number', options: { set: ['sender.replicas=two'] }, message: '- sender.replicas: Invalid type. Expected: integer, given: string' },
  { name: 'a misspelt key', options: { set: ['api.replica=2'] }, message: '- api: Additional property replica is not allowed' },
  { name: 'an app key in values', options: { setJson: ['apps=[{"id":"shop","key":"shop-app-key"}]'] }, message: '- apps.0.key: Must not validate the schema (not)' },
  { name: 'an app id Herald refuses', options: { setJson: ['apps=[{"id":"my shop"}]'] }, message: '- apps.0.id: Does not match pattern' },
  { name: 'a backend setting in config', options: { setJson: ['config={"store":{"kind":"cassandra"}}'] }, message: '- config: Property name of "store" does not match' },
  { name: 'a port out of range', options: { set: ['ports.http=70000'] }, message: '- ports.http: Must be less than or equal to 65535' },
  { name: 'a replication Herald cannot read', options: { set: ['cassandra.replication=three'] }, message: '- cassandra.replication: Does not match pattern' },
  { name: 'a monitoring switch that is neither true, false nor auto', options: { set: ['metrics.serviceMonitor.enabled=maybe'] }, message: '- metrics.serviceMonitor.enabled: metrics.serviceMonitor.enabled must be one of the following: true, false, "auto"' },
  { name: 'a Secret entry name Kubernetes refuses', options: { setJson: ['secret.stringData={"app/shop":"x"}'] }, message: '- secret.stringData: Property name of "app/shop" does not match' },
  { name: 'a Redis URL with another scheme', options: { set: ['redis.url=http://redis:6379'] }, message: '- redis.url: Does not match pattern' },
];

describe('values.schema.json', () => {
  it.each(schemaRefusals)('refuses $name, naming its path', ({ options, message }) => {
    const result = templateChart(options);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("values don't meet the specifications of the schema(s)");
    expect(result.stderr).toContain(message);
  });
});

/** Values each right on its own but wrong together: the chart refuses them, as Herald would at start or as a second pod would break. */
const combinationRefusals: { name: string; options: RenderOptions; message: string }[] = [
  { name: 'a role of its own on the embedded store', options: { set: ['api.enabled=true'] }, message: 'api.enabled: a role in pods of its own needs Cassandra (cassandra.contactPoints)' },
  {
    name: 'split roles without Kafka',
    options: { values: [ciValues.production], setJson: ['kafka.brokers=[]'] },
    message: 'a role in pods of its own needs Kafka (kafka.brokers)',
  },
  { name: 'two pods on the embedded store', options: { set: ['all.replicas=2'] }, message: 'all.replicas: at most 1 on the embedded store' },
  { name: 'Cassandra without Redis', options: { values: [ciValues.production], set: ['redis.urlKey='] }, message: 'redis.url (or redis.urlKey) is required beside Cassandra or Kafka' },
  { name: 'shared backends without an app', options: { values: [ciValues.production], setJson: ['apps=[]'] }, message: 'apps: configure at least one app' },
  {
    name: 'an app without its keys in the chart-made Secret',
    options: { values: [ciValues.trial], setJson: ['secret.stringData={"app.trial.key":"trial-app-key"}'] },
    message: 'secret.stringData: app trial needs its masterKey as app.trial.masterKey',
  },
  {
    name: 'a grace period shorter than the drain',
    options: { values: [ciValues.production], set: ['sender.terminationGracePeriodSeconds=20'] },
    message: 'sender.terminationGracePeriodSeconds: 20 is too short; the preStop pause and the sender drain take up to 25s',
  },
  {
    name: 'a grace period that a longer gateway timeout outgrows',
    options: { values: [ciValues.production], set: ['config.push.gateways.requestTimeoutMs=40000'] },
    message: 'sender.terminationGracePeriodSeconds: 45 is too short; the preStop pause and the sender drain take up to 55s',
  },
  {
    name: 'more senders than partitions of push.tasks',
    options: { values: [ciValues.autoscaling], set: ['sender.keda.maxReplicaCount=30'] },
    message: 'sender.keda.maxReplicaCount: 30 senders for 24 partitions of push.tasks',
  },
  {
    name: 'a CPU autoscaler without a CPU request',
    options: { values: [ciValues.autoscaling], setJson: ['api.resources.requests=null'] },
    message: 'api.autoscaling.enabled: set api.resources.requests.cpu',
  },
  { name: 'the gRPC port on the internal port', options: { set: ['ports.grpc=9100'] }, message: 'ports: http, grpc and internal must differ' },
];

describe('the chart refuses values that do not work together', () => {
  it.each(combinationRefusals)('refuses $name', ({ options, message }) => {
    const result = templateChart(options);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(message);
  });
});
