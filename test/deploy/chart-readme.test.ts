import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { chartReadmeFile, chartValuesFile, readmeWithTable, valueRows, valuesTable } from '../../scripts/tools/chart-readme.ts';
import { chartDir, findObject, lintChart, renderChart, repoRoot } from './support/helm-chart.ts';

describe("the chart README's values table", () => {
  it('is the one values.yaml makes (npm run chart:readme rewrites it)', () => {
    const readme = readFileSync(chartReadmeFile, 'utf8');
    const rows = valueRows(readFileSync(chartValuesFile, 'utf8'));
    expect(readme).toBe(readmeWithTable(readme, valuesTable(rows)));
    expect(rows.map((row) => row.key)).toEqual(expect.arrayContaining(['api.replicas', 'secret.existingSecret', 'sender.keda.lagThreshold', 'metrics.serviceMonitor.enabled']));
  });

  it('lists each value with its default', () => {
    const rows = new Map(valueRows(readFileSync(chartValuesFile, 'utf8')).map((row) => [row.key, row]));
    expect(rows.get('api.replicas')).toEqual({ key: 'api.replicas', type: 'number', default: 2, description: 'Pods, when the HorizontalPodAutoscaler is off.' });
    expect(rows.get('ports.internal')?.default).toBe(9100);
    // A group whose values have rows of their own shows no default of its own.
    expect(rows.get('sender')?.default).toBeUndefined();
  });

  it('cannot leave a value out: one without a description is an error naming it', () => {
    const yaml = ['# -- Documented.', 'documented: 1', 'group:', '  # -- Documented too.', '  inner: true', '  forgotten: 3', 'alsoForgotten: {}'].join('\n');
    expect(() => valueRows(yaml)).toThrow('values without a "# -- " description in values.yaml: group.forgotten, alsoForgotten');
  });
});

describe('values.schema.json', () => {
  it('knows every value of values.yaml, and values.yaml every value it knows', () => {
    const values = parseYaml(readFileSync(chartValuesFile, 'utf8')) as Record<string, unknown>;
    const schema = JSON.parse(readFileSync(path.join(chartDir, 'values.schema.json'), 'utf8')) as { properties: Record<string, { properties?: Record<string, unknown> }> };
    expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(values).sort());
    for (const [key, value] of Object.entries(values)) {
      const nested = schema.properties[key]?.properties;
      if (nested === undefined || value === null || typeof value !== 'object' || Array.isArray(value)) continue;
      // config takes any of Herald's settings beyond the few the schema checks itself.
      if (key === 'config') continue;
      expect(Object.keys(nested).sort(), key).toEqual(expect.arrayContaining(Object.keys(value).sort()));
    }
  });
});

describe("the README's Deploy on Kubernetes section", () => {
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Deploy on Kubernetes'), readme.indexOf('## Configuration'));

  it('gives a values file the chart installs as a Deployment per role with the migration Job', () => {
    const block = /\n {3}```yaml\n {3}# herald-values\.yaml\n([\s\S]*?)\n {3}```/.exec(section)?.[1];
    if (block === undefined) throw new Error('the section has no herald-values.yaml block');
    const dir = mkdtempSync(path.join(tmpdir(), 'herald-readme-values-'));
    try {
      const file = path.join(dir, 'herald-values.yaml');
      writeFileSync(file, block.replace(/^ {3}/gm, ''));
      expect(lintChart({ values: [file] }).status).toBe(0);
      const objects = renderChart({ values: [file] });
      expect(objects.filter((object) => object.kind === 'Deployment').map((object) => object.metadata.name).sort()).toEqual([
        'herald-api',
        'herald-fanout',
        'herald-scheduler',
        'herald-sender',
      ]);
      findObject(objects, 'Job', 'herald-migration');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('starts the trial with values the chart accepts', () => {
    expect(section).toContain('helm install herald ./charts/herald --set image.repository=herald --set persistence.enabled=true');
    findObject(renderChart({ set: ['image.repository=herald', 'persistence.enabled=true'], testImage: false }), 'PersistentVolumeClaim', 'herald-data');
  });
});
