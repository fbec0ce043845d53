import { describe, expect, it } from 'vitest';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { schemaProblems } from './support/chart-models.ts';
import { ciValues, findObject, objectsOfKind, renderChart, type KubeObject, type RenderOptions } from './support/helm-chart.ts';

type RenderedPolicy = INetworkPolicy & KubeObject;

function policies(options: RenderOptions): { all: RenderedPolicy; api: RenderedPolicy; objects: KubeObject[] } {
  const objects = renderChart({ ...options, set: ['networkPolicy.enabled=true', ...(options.set ?? [])] });
  return { all: findObject(objects, 'NetworkPolicy', 'herald') as RenderedPolicy, api: findObject(objects, 'NetworkPolicy', 'herald-api') as RenderedPolicy, objects };
}

/** The TCP ports of the egress rules that name ports, in order. */
function egressPorts(policy: RenderedPolicy): (number | string | undefined)[][] {
  return (policy.spec?.egress ?? []).map((rule) => (rule.ports ?? []).map((port) => port.port));
}

describe('the NetworkPolicies (networkPolicy.enabled)', () => {
  it('are not made unless asked for', () => {
    expect(objectsOfKind(renderChart({ values: [ciValues.production] }), 'NetworkPolicy')).toEqual([]);
  });

  it.each([
    ['the trial', ciValues.trial],
    ['production', ciValues.production],
    ['autoscaling', ciValues.autoscaling],
  ])('are valid against the Kubernetes schema for %s', (_name, file) => {
    const { objects } = policies({ values: [file] });
    expect(objectsOfKind(objects, 'NetworkPolicy').flatMap(schemaProblems)).toEqual([]);
    expect(objectsOfKind(objects, 'NetworkPolicy')).toHaveLength(2);
  });

  it('select every Herald pod of the release, the Jobs too, and let only the monitoring namespace reach the internal port', () => {
    const { all, objects } = policies({ values: [ciValues.production] });
    expect(all.spec?.podSelector?.matchLabels).toEqual({ 'app.kubernetes.io/name': 'herald', 'app.kubernetes.io/instance': 'herald' });
    const job = findObject(objects, 'Job', 'herald-migration') as KubeObject & { spec: { template: { metadata: { labels: Record<string, string> } } } };
    expect(job.spec.template.metadata.labels).toMatchObject(all.spec?.podSelector?.matchLabels ?? {});
    expect(all.spec?.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(all.spec?.ingress).toEqual([{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }], ports: [{ port: 9100, protocol: 'TCP' }] }]);
  });

  it('let anyone reach the API ports of the pods that serve them, or only networkPolicy.apiFrom', () => {
    const open = policies({ values: [ciValues.production] }).api;
    expect(open.spec?.podSelector?.matchLabels).toMatchObject({ 'herald/serves-api': 'true' });
    expect(open.spec?.policyTypes).toEqual(['Ingress']);
    expect(open.spec?.ingress).toEqual([{ ports: [{ port: 3000, protocol: 'TCP' }, { port: 50051, protocol: 'TCP' }] }]);
    const ingressController = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } };
    const closed = policies({ values: [ciValues.production], setJson: [`networkPolicy.apiFrom=${JSON.stringify([ingressController])}`] }).api;
    expect(closed.spec?.ingress?.[0]?.from).toEqual([ingressController]);
  });

  it('let the pods reach DNS, the ports of the backends they are given and HTTPS for the push gateways, and nothing else', () => {
    const { all } = policies({
      values: [ciValues.production],
      setJson: ['cassandra.contactPoints=["cassandra-0.cassandra:9142","cassandra-1.cassandra"]', 'kafka.brokers=["kafka:9093"]'],
      set: ['redis.urlKey=', 'redis.url=rediss://redis-master.redis:6380'],
    });
    expect(all.spec?.egress?.[0]).toEqual({
      to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } } }],
      ports: [
        { port: 53, protocol: 'UDP' },
        { port: 53, protocol: 'TCP' },
      ],
    });
    expect(egressPorts(all)).toEqual([[53, 53], [9142, 9042, 9093, 6380], [443]]);
    expect(all.spec?.egress?.[1]?.to, 'the backends wherever they are, unless backendTo says').toBeUndefined();
  });

  it('take the backends ports, their peers, the gateway ports and more rules from values', () => {
    const backends = [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'data' } } }];
    const smtp = { to: [{ ipBlock: { cidr: '192.0.2.10/32' } }], ports: [{ port: 587, protocol: 'TCP' }] };
    const { all, objects } = policies({
      values: [ciValues.production],
      setJson: [
        'networkPolicy.egress.backendPorts=[9042,9092,6379,9093]',
        `networkPolicy.egress.backendTo=${JSON.stringify(backends)}`,
        'networkPolicy.egress.gatewayPorts=[443,2197]',
        `networkPolicy.egress.extraRules=${JSON.stringify([smtp])}`,
      ],
      set: ['networkPolicy.metricsNamespace=observability', 'networkPolicy.egress.dnsNamespace=dns'],
    });
    expect(objectsOfKind(objects, 'NetworkPolicy').flatMap(schemaProblems)).toEqual([]);
    expect(egressPorts(all)).toEqual([[53, 53], [9042, 9092, 6379, 9093], [443, 2197], [587]]);
    expect(all.spec?.egress?.[1]?.to).toEqual(backends);
    expect(all.spec?.egress?.[0]?.to?.[0]?.namespaceSelector?.matchLabels).toEqual({ 'kubernetes.io/metadata.name': 'dns' });
    expect(all.spec?.ingress?.[0]?.from?.[0]?.namespaceSelector?.matchLabels).toEqual({ 'kubernetes.io/metadata.name': 'observability' });
  });

  it('on the embedded trial open no backend port, and follow the ports values', () => {
    const { all, api } = policies({ values: [ciValues.trial], set: ['ports.internal=9200', 'ports.http=8080'], setJson: ['ports.grpc=null'] });
    expect(egressPorts(all)).toEqual([[53, 53], [443]]);
    expect(all.spec?.ingress?.[0]?.ports).toEqual([{ port: 9200, protocol: 'TCP' }]);
    expect(api.spec?.ingress?.[0]?.ports).toEqual([{ port: 8080, protocol: 'TCP' }]);
  });

  it('refuse values of the wrong shape, naming them', () => {
    const result = renderChart.bind(null, { set: ['networkPolicy.enabled=true', 'networkPolicy.egress.gatewayPorts[0]=https'] });
    expect(result).toThrow('networkPolicy.egress.gatewayPorts.0: Invalid type. Expected: integer, given: string');
  });
});
