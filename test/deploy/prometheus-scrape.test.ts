import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { deviceToken } from '../support/gateways/gateway-fixtures.ts';
import { startPushHerald, uniqueName, type PushHerald } from '../push/support/push-herald.ts';
import {
  dashboardExpressions,
  monitoringFiles,
  readAlertRules,
  readDashboard,
  readExposition,
  referencedNames,
  variableExpressions,
  type SourcedExpression,
} from './support/prometheus-expressions.ts';
import { startPrometheus, type PrometheusServer, type QueryAnswer } from './support/prometheus-server.ts';

/** Series Prometheus makes itself for every target, not Herald: the only names the files may use that /metrics does not define. */
const prometheusOwnMetrics = new Set(['up']);
/** Labels Prometheus puts on every series of a target: `namespace` as Kubernetes discovery does, `role` as the chart's ServiceMonitor does. */
const targetLabels = new Set(['job', 'instance', 'namespace', 'role']);

const namespace = 'deploy-test';
const role = 'all';
const iosDevices = 3;
const fcmDevices = 2;

let p: PushHerald;
let prometheus: PrometheusServer;
let instance: string;
let dashboardQueries: SourcedExpression[];
let variableQueries: ReturnType<typeof variableExpressions>;
const alertQueries = readAlertRules().map((rule) => ({ source: `alert ${rule.alert}`, expr: rule.expr }));

beforeAll(async () => {
  p = await startPushHerald();
  instance = new URL(p.h.baseUrl).host;
  prometheus = await startPrometheus({ targets: [{ job: 'herald', address: instance, labels: { namespace, role } }], ruleFiles: [monitoringFiles.alerts] });
  // The values a Grafana user would pick for this deployment; a dot in the instance is a regex wildcard, as in Grafana.
  const chosen = { namespace, job: 'herald', role, instance };
  dashboardQueries = dashboardExpressions(readDashboard(), chosen);
  variableQueries = variableExpressions(readDashboard(), chosen);
});

afterAll(async () => {
  await prometheus?.stop();
  await p?.close();
});

/** Queries, failing with the query, where it comes from and Prometheus's error when it does not succeed. */
async function evaluate({ source, expr }: SourcedExpression): Promise<QueryAnswer> {
  const answer = await prometheus.query(expr);
  expect(answer.status, `${source} failed to evaluate: ${answer.errorType}: ${answer.error}\n${expr}`).toBe('success');
  return answer;
}

/** The single value of an aggregating query; undefined while it has no series. */
async function single(expr: string): Promise<number | undefined> {
  const answer = await evaluate({ source: 'test query', expr });
  const value = answer.data?.result[0]?.value?.[1];
  return value === undefined ? undefined : Number(value);
}

describe('Prometheus scraping a running Herald', () => {
  it('sees the backends up and a push in the delivery metrics', { timeout: 60_000 }, async () => {
    await eventually(`Prometheus to scrape Herald at ${instance}`, () => single(`up{job="herald"}`), (up) => up === 1, {
      timeoutMs: 20_000,
      intervalMs: 200,
      detail: () => `prometheus printed:\n${prometheus.output()}`,
    });
    // The backends /readyz checks, each up and needed by a process that runs every role.
    const backends = await evaluate({ source: 'test query', expr: 'herald_dependency_up{job="herald"}' });
    expect(backends.data?.result.map((one) => `${one.metric.dependency} ${one.metric.required} ${one.value?.[1]}`).sort()).toEqual([
      'bus true 1',
      'coordination true 1',
      'store true 1',
    ]);
    // Every gateway and outcome is there at zero before the first delivery, so rate() counts the push.
    expect(await single('sum(herald_push_deliveries_total{job="herald"})')).toBe(0);

    const channel = uniqueName('prometheus');
    for (let n = 1; n <= iosDevices; n += 1) await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(n), channels: [channel] });
    for (let n = 1; n <= fcmDevices; n += 1) {
      await p.saveInstallation({ deviceType: 'android', installationId: `prom-${n}`, registrationId: `fcm-prom-${n}`, vendor: 'fcm', channels: [channel] });
    }
    const sent = await p.send({ channels: [channel], data: { alert: 'Scraped' } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    await p.settled(sent.body.objectId);

    const delivered = (gateway: string) => single(`sum(herald_push_deliveries_total{job="herald", gateway="${gateway}", outcome="delivered"})`);
    await eventually(
      `Prometheus to show ${iosDevices} APNs and ${fcmDevices} FCM deliveries`,
      async () => ({ apns: await delivered('apns'), fcm: await delivered('fcm') }),
      (seen) => seen.apns === iosDevices && seen.fcm === fcmDevices,
      { timeoutMs: 20_000, intervalMs: 200, detail: () => `prometheus printed:\n${prometheus.output()}` },
    );
    expect(await single('sum(herald_push_deliveries_total{job="herald"})')).toBe(iosDevices + fcmDevices);
    expect(await single('sum(herald_pushes_accepted_total{job="herald", when="now"})')).toBe(1);
    expect(await single('sum(herald_gateway_request_duration_seconds_count{job="herald"})')).toBe(iosDevices + fcmDevices);

    // The dashboard's own throughput panel, with this deployment's variables, shows both gateways.
    const throughput = dashboardQueries.find(({ source }) => source.startsWith('panel "Deliveries by gateway and outcome"'));
    expect(throughput, 'the dashboard has a deliveries panel').toBeDefined();
    const series = (await evaluate(throughput as SourcedExpression)).data?.result ?? [];
    const moving = series.filter((one) => Number(one.value?.[1]) > 0);
    expect(moving.map((one) => `${one.metric.gateway} ${one.metric.outcome}`).sort()).toEqual(['apns delivered', 'fcm delivered']);
  });

  it('shows a device that was not delivered by its reason, in the metric and the failures panels', { timeout: 60_000 }, async () => {
    const channel = uniqueName('prometheus-failing');
    await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(9100), channels: [channel] });
    await p.saveInstallation({ deviceType: 'android', installationId: 'prom-no-token', vendor: 'fcm', channels: [channel] });
    p.fakes.apns.respondTo(deviceToken(9100), [{ status: 400, reason: 'BadDeviceToken' }]);
    const sent = await p.send({ channels: [channel], data: { alert: 'Refused' } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    await p.settled(sent.body.objectId);

    const failures = () => evaluate({ source: 'test query', expr: 'herald_push_failures_total{job="herald"}' });
    const seen = await eventually(
      'Prometheus to show the two devices not delivered by reason',
      async () => ((await failures()).data?.result ?? []).map((one) => `${one.metric.gateway} ${one.metric.outcome} ${one.metric.reason} ${one.value?.[1]}`).sort(),
      (series) => series.length === 2,
      { timeoutMs: 20_000, intervalMs: 200, detail: () => `prometheus printed:\n${prometheus.output()}` },
    );
    expect(seen).toEqual(['apns invalid-token BadDeviceToken 1', 'fcm not-sent NoRegistrationId 1']);

    // The dashboard's panel over the range, with this deployment's variables, names both.
    const top = dashboardQueries.find(({ source }) => source.startsWith('panel "Top failure reasons over the range"'));
    expect(top, 'the dashboard has a panel of failure reasons').toBeDefined();
    // increase() needs two samples of a series: wait for the next scrape.
    const reasons = await eventually(
      'the panel to list both reasons',
      async () => ((await evaluate(top as SourcedExpression)).data?.result ?? []).map((one) => `${one.metric.gateway} ${one.metric.reason}`).sort(),
      (listed) => listed.length === 2,
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    expect(reasons).toEqual(['apns BadDeviceToken', 'fcm NoRegistrationId']);
  });

  it('evaluates every dashboard query without error', async () => {
    expect(dashboardQueries.length).toBeGreaterThan(10);
    for (const query of dashboardQueries) await evaluate(query);
  });

  it("offers this deployment's namespace, job, role and instance in the dashboard's variables", async () => {
    const offered: Record<string, string[]> = {};
    for (const query of variableQueries) {
      offered[query.variable] = ((await evaluate(query)).data?.result ?? []).map((one) => one.metric[query.label] as string);
    }
    expect(offered).toEqual({ namespace: [namespace], job: ['herald'], role: [role], instance: [instance] });
  });

  it('evaluates every alert expression without error, by query and in its own rule evaluation', { timeout: 30_000 }, async () => {
    for (const query of alertQueries) await evaluate(query);
    const rules = await eventually(
      'Prometheus to evaluate every loaded rule',
      () => prometheus.rules(),
      (loaded) => loaded.length === alertQueries.length && loaded.every((rule) => rule.health !== 'unknown'),
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    for (const rule of rules) expect(rule.health, `${rule.name}: ${rule.lastError}`).toBe('ok');
  });

  it("names only metrics and labels that Herald's /metrics defines", async () => {
    const exposition = readExposition(await (await fetch(`${p.h.baseUrl}/metrics`)).text());
    // Labels a metric declares, though nothing has set them yet (a failed login, say), from Herald's own registry.
    const declared = new Map<string, string[]>();
    for (const metric of p.h.herald.runtime.metrics.registry.getMetricsAsArray()) {
      declared.set(metric.name, (metric as { labelNames?: string[] }).labelNames ?? []);
    }
    const labelsOf = (name: string): string[] => {
      const family = name.replace(/_(bucket|sum|count)$/, '');
      return [...(exposition.labels.get(name) ?? []), ...(declared.get(name) ?? declared.get(family) ?? []), ...(name.endsWith('_bucket') ? ['le'] : [])];
    };
    const unknown: string[] = [];
    for (const { source, expr } of [...dashboardQueries, ...variableQueries, ...alertQueries]) {
      const { metrics, labels } = referencedNames(expr);
      for (const metric of metrics) {
        if (!exposition.names.has(metric) && !prometheusOwnMetrics.has(metric)) unknown.push(`${source}: metric ${metric}`);
      }
      const available = new Set([...targetLabels, ...metrics.flatMap(labelsOf)]);
      for (const label of labels) if (!available.has(label)) unknown.push(`${source}: label ${label} (none of ${metrics.join(', ')} has it)`);
    }
    expect(unknown).toEqual([]);
  });
});
