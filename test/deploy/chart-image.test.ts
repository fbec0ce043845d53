import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ciValues, lintChart, renderChart, templateChart, type CiValuesName } from './support/helm-chart.ts';
import { podSpec, deploymentOf } from './support/chart-pods.ts';

describe("the chart's image", () => {
  it('is required: the default values fail the install saying how to build the image and load it into kind or minikube', () => {
    const result = templateChart({ testImage: false });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('image.repository is required: no public registry serves Herald\'s image');
    expect(result.stderr).toContain('docker build -t herald:0.1.0 .');
    expect(result.stderr).toContain('kind load docker-image herald:0.1.0');
    expect(result.stderr).toContain('minikube image load herald:0.1.0');
  });

  it('leaves helm lint of the bare chart passing, with the same message as information (lint does not stop on a required value)', () => {
    const result = lintChart({ testImage: false });
    expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
    expect(`${result.stdout}${result.stderr}`).toContain('[INFO] Fail: image.repository is required');
  });

  it.each(Object.keys(ciValues) as CiValuesName[])('is named by ci/%s-values.yaml, which lints without any other value', (name) => {
    const values = parseYaml(readFileSync(ciValues[name], 'utf8')) as { image?: { repository?: string } };
    expect(values.image?.repository).toMatch(/herald$/);
    const result = lintChart({ values: [ciValues[name]], testImage: false });
    expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
  });

  it('runs in every container as repository:tag, the tag defaulting to the chart appVersion', () => {
    const objects = renderChart({ set: ['image.repository=registry.example.com/team/herald'] });
    const spec = podSpec(deploymentOf(objects, 'all'));
    expect([...(spec.initContainers ?? []), ...spec.containers].map((container) => container.image)).toEqual(['registry.example.com/team/herald:0.1.0', 'registry.example.com/team/herald:0.1.0']);
  });

  it.each([
    ['a tag inside the repository', 'herald:0.1.0'],
    ['upper case', 'Registry.example.com/Herald'],
    ['a space', 'my herald'],
    ['a trailing slash', 'registry.example.com/'],
  ])('refuses a repository with %s, naming the value', (_name, repository) => {
    const result = templateChart({ set: [`image.repository=${repository}`] });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('- image.repository: Does not match pattern');
  });

  it('refuses a tag Docker would refuse', () => {
    const result = templateChart({ set: ['image.tag=v1/latest'] });
    expect(result.stderr).toContain('- image.tag: Does not match pattern');
  });
});
