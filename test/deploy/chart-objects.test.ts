import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { schemaProblems } from './support/chart-models.ts';
import {
  chartDir,
  ciValues,
  findObject,
  namespace,
  objectsOfKind,
  prometheusOperatorApis,
  releaseName,
  renderChart,
  type CiValuesName,
  type KubeObject,
  type RenderOptions,
} from './support/helm-chart.ts';

const renderings: [string, RenderOptions][] = [
  ['the default values', {}],
  ['the default values where the Prometheus Operator runs', { apiVersions: prometheusOperatorApis }],
  ...(Object.keys(ciValues) as CiValuesName[]).map((name): [string, RenderOptions] => [`ci/${name}-values.yaml`, { values: [ciValues[name]] }]),
];

function kinds(objects: readonly KubeObject[]): string[] {
  return objects.map((object) => `${object.kind}/${object.metadata.name}`).sort();
}

describe('every object the chart renders', () => {
  it.each(renderings)('is valid against its Kubernetes schema with %s', (_name, options) => {
    const objects = renderChart(options);
    expect(objects.length).toBeGreaterThan(5);
    expect(objects.flatMap(schemaProblems)).toEqual([]);
  });

  it.each(renderings)('is named within Kubernetes limits, in the release namespace and labelled as Herald with %s', (_name, options) => {
    for (const object of renderChart(options)) {
      expect(object.metadata.name, `${object.kind} name`).toMatch(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
      expect(object.metadata.namespace, `${object.kind}/${object.metadata.name}`).toBe(namespace);
      expect(object.metadata.labels, `${object.kind}/${object.metadata.name}`).toMatchObject({
        'app.kubernetes.io/name': 'herald',
        'app.kubernetes.io/instance': 'herald',
        'app.kubernetes.io/managed-by': 'Helm',
      });
    }
  });
});

describe('the schema check', () => {
  it('refuses an object the Kubernetes API would refuse, naming the field', () => {
    const deployment = structuredClone(findObject(renderChart(), 'Deployment', 'herald-all')) as KubeObject & {
      spec: { template: { spec: { containers: { ports: { containerPort: unknown }[] }[] } } };
    };
    const port = deployment.spec.template.spec.containers[0]?.ports[0];
    if (port === undefined) throw new Error('the herald container has no port');
    port.containerPort = 'http';
    expect(schemaProblems(deployment)).toEqual([expect.stringContaining('containers/0/ports/0/containerPort must be integer')]);
  });

  it('refuses a kind it has no schema for rather than passing it unchecked', () => {
    const unknown: KubeObject = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } };
    expect(schemaProblems(unknown)).toEqual(['example.com/v1/Widget w: no schema to check it against']);
  });
});

describe('the objects each values file gives', () => {
  it('runs the trial as one pod with every role, its store on a claim, behind an Ingress, without a migration Job', () => {
    expect(kinds(renderChart({ values: [ciValues.trial] }))).toEqual([
      'ConfigMap/herald',
      'Deployment/herald-all',
      'Ingress/herald',
      'PersistentVolumeClaim/herald-data',
      'PodDisruptionBudget/herald-all',
      'Secret/herald',
      'Service/herald',
      'Service/herald-metrics',
      'ServiceAccount/herald',
    ]);
  });

  it('runs production as a Deployment per role with a migration Job, and makes no Secret beside the existing one', () => {
    expect(kinds(renderChart({ values: [ciValues.production] }))).toEqual([
      'ConfigMap/herald',
      'ConfigMap/herald-migration',
      'Deployment/herald-api',
      'Deployment/herald-fanout',
      'Deployment/herald-scheduler',
      'Deployment/herald-sender',
      'Ingress/herald',
      'Job/herald-migration',
      'PodDisruptionBudget/herald-api',
      'PodDisruptionBudget/herald-fanout',
      'PodDisruptionBudget/herald-scheduler',
      'PodDisruptionBudget/herald-sender',
      'Service/herald',
      'Service/herald-metrics',
      'ServiceAccount/herald',
      'ServiceAccount/herald-migration',
    ]);
  });

  it('adds the autoscalers and the monitoring objects when they are asked for', () => {
    const objects = kinds(renderChart({ values: [ciValues.autoscaling] }));
    expect(objects).toEqual(
      expect.arrayContaining([
        'HorizontalPodAutoscaler/herald-api',
        'ScaledObject/herald-sender',
        'ServiceMonitor/herald',
        'PrometheusRule/herald',
        'ConfigMap/herald-dashboard',
      ]),
    );
  });
});

describe('monitoring objects', () => {
  it('are left out where the Prometheus Operator does not run, and rendered where it does', () => {
    const without = renderChart();
    expect(without.filter((object) => ['ServiceMonitor', 'PrometheusRule'].includes(object.kind))).toEqual([]);
    expect(without.find((object) => object.metadata.name === 'herald-dashboard')).toBeUndefined();

    const withOperator = renderChart({ apiVersions: prometheusOperatorApis });
    expect(objectsOfKind(withOperator, 'ServiceMonitor')).toHaveLength(1);
    expect(objectsOfKind(withOperator, 'PrometheusRule')).toHaveLength(1);
    findObject(withOperator, 'ConfigMap', 'herald-dashboard');
  });

  it('are left out when turned off, even where the operator runs', () => {
    const objects = renderChart({
      apiVersions: prometheusOperatorApis,
      set: ['metrics.serviceMonitor.enabled=false', 'metrics.prometheusRule.enabled=false', 'metrics.grafanaDashboard.enabled=false'],
    });
    expect(objects.filter((object) => ['ServiceMonitor', 'PrometheusRule'].includes(object.kind) || object.metadata.name === 'herald-dashboard')).toEqual([]);
  });

  it('scrape every pod of the release on its internal port, naming the role', () => {
    const objects = renderChart({ values: [ciValues.autoscaling] });
    const monitor = findObject(objects, 'ServiceMonitor', 'herald') as KubeObject & { spec: Record<string, never> };
    expect(monitor.metadata.labels).toMatchObject({ release: 'kube-prometheus-stack' });
    const metricsService = findObject(objects, 'Service', 'herald-metrics') as KubeObject & { spec: { selector: Record<string, string>; ports: unknown[]; clusterIP: string } };
    expect(monitor.spec.selector).toEqual({ matchLabels: { ...selectorOf(metricsService.metadata.labels), 'app.kubernetes.io/component': 'metrics' } });
    expect(metricsService.spec).toMatchObject({ clusterIP: 'None', ports: [{ name: 'metrics', port: 9100, targetPort: 'metrics' }] });
    expect(monitor.spec.endpoints).toEqual([
      expect.objectContaining({ port: 'metrics', path: '/metrics', relabelings: [{ sourceLabels: ['__meta_kubernetes_pod_label_app_kubernetes_io_component'], targetLabel: 'role' }] }),
    ]);
    // Every role's pods carry the label the metrics Service selects; the migration Job's do not.
    for (const deployment of objectsOfKind(objects, 'Deployment')) {
      const labels = (deployment.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
      expect(labels, deployment.metadata.name).toMatchObject(metricsService.spec.selector);
    }
    const job = findObject(objects, 'Job', 'herald-migration') as KubeObject & { spec: { template: { metadata: { labels: Record<string, string> } } } };
    expect(job.spec.template.metadata.labels['herald/metrics']).toBeUndefined();
  });

  it('carry files/alerts.yaml as the PrometheusRule spec, unchanged, and a HeraldRoleAbsent rule per role that runs pods after it', () => {
    const rule = findObject(renderChart({ values: [ciValues.autoscaling] }), 'PrometheusRule', 'herald') as KubeObject & { spec: { groups: { name: string; rules: { alert: string; expr: string }[] }[] } };
    const alerts = parseYaml(readFileSync(path.join(chartDir, 'files/alerts.yaml'), 'utf8')) as { groups: unknown[] };
    expect(alerts.groups.length).toBeGreaterThan(0);
    expect(rule.spec.groups.slice(0, alerts.groups.length)).toEqual(alerts.groups);
    const presence = rule.spec.groups.slice(alerts.groups.length);
    expect(presence.map((group) => group.name)).toEqual(['herald-presence']);
    // The autoscaled api and senders keep at least two pods, so every role gets its rule.
    expect(presence[0]?.rules.map((one) => one.expr)).toEqual(
      ['sender', 'fanout', 'api', 'scheduler'].map((role) => `absent(up{namespace="${namespace}", job="${releaseName}", role="${role}"})`),
    );
  });

  it('write no HeraldRoleAbsent for a role that may scale to no pod, nor without the chart\'s ServiceMonitor to name the job', () => {
    const presence = (objects: KubeObject[]) =>
      ((findObject(objects, 'PrometheusRule', 'herald') as KubeObject & { spec: { groups: { name: string; rules: { expr: string }[] }[] } }).spec.groups.find(
        (group) => group.name === 'herald-presence',
      )?.rules ?? []).map((one) => one.expr);
    const scaledToZero = renderChart({ values: [ciValues.autoscaling], set: ['sender.keda.minReplicaCount=0', 'scheduler.replicas=0'] });
    expect(presence(scaledToZero)).toEqual(['fanout', 'api'].map((role) => `absent(up{namespace="${namespace}", job="${releaseName}", role="${role}"})`));
    const trial = renderChart({ apiVersions: prometheusOperatorApis });
    expect(presence(trial)).toEqual([`absent(up{namespace="${namespace}", job="${releaseName}", role="all"})`]);
    const unscraped = renderChart({ apiVersions: prometheusOperatorApis, set: ['metrics.serviceMonitor.enabled=false'] });
    expect(presence(unscraped)).toEqual([]);
  });

  it('carry files/grafana-dashboard.json in a ConfigMap with the sidecar label', () => {
    const dashboard = findObject(renderChart({ values: [ciValues.autoscaling] }), 'ConfigMap', 'herald-dashboard') as KubeObject & { data: Record<string, string> };
    expect(dashboard.metadata.labels).toMatchObject({ grafana_dashboard: '1' });
    expect(dashboard.metadata.annotations).toEqual({ grafana_folder: 'Herald' });
    const shipped: unknown = JSON.parse(readFileSync(path.join(chartDir, 'files/grafana-dashboard.json'), 'utf8'));
    expect(JSON.parse(dashboard.data['herald.json'] ?? '')).toEqual(shipped);
  });

  it('take the label name and value the sidecar is set up with', () => {
    const dashboard = findObject(
      renderChart({ set: ['metrics.grafanaDashboard.enabled=true', 'metrics.grafanaDashboard.labelName=dashboards', 'metrics.grafanaDashboard.labelValue=herald'] }),
      'ConfigMap',
      'herald-dashboard',
    );
    expect(dashboard.metadata.labels).toMatchObject({ dashboards: 'herald' });
    expect(dashboard.metadata.labels?.grafana_dashboard).toBeUndefined();
  });
});

/** The selector labels among an object's labels: the release and chart name. */
function selectorOf(labels: Record<string, string> | undefined): Record<string, string> {
  return { 'app.kubernetes.io/name': labels?.['app.kubernetes.io/name'] ?? '', 'app.kubernetes.io/instance': labels?.['app.kubernetes.io/instance'] ?? '' };
}
