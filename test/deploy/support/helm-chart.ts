import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { helmBinary } from '../../../scripts/tools/helm.ts';

/** A rendered Kubernetes object, as plain data. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

export interface HelmResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const chartDir = path.join(repoRoot, 'charts/herald');
export const releaseName = 'herald';
export const namespace = 'push';

/** The values files of charts/herald/ci, by name: what a trial, a production install and an autoscaled one give. */
export const ciValues = {
  trial: path.join(chartDir, 'ci/trial-values.yaml'),
  production: path.join(chartDir, 'ci/production-values.yaml'),
  autoscaling: path.join(chartDir, 'ci/autoscaling-values.yaml'),
} as const;

export type CiValuesName = keyof typeof ciValues;

/** The Prometheus Operator's API, as a cluster that runs it serves it. */
export const prometheusOperatorApis = ['monitoring.coreos.com/v1/ServiceMonitor', 'monitoring.coreos.com/v1/PrometheusRule'];

let binary: string | undefined;

/** Runs helm with its caches and config under .tools, never the user's home; throws when helm cannot be had. */
export function helm(args: readonly string[]): HelmResult {
  binary ??= helmBinary();
  const home = path.join(repoRoot, '.tools', 'helm-home');
  mkdirSync(home, { recursive: true });
  const env = { ...process.env, HELM_CACHE_HOME: path.join(home, 'cache'), HELM_CONFIG_HOME: path.join(home, 'config'), HELM_DATA_HOME: path.join(home, 'data') };
  const result = spawnSync(binary, args, { encoding: 'utf8', env, maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export interface RenderOptions {
  /** Values files, in order. */
  values?: readonly string[];
  /** `--set` arguments (`key=value`). */
  set?: readonly string[];
  /** `--set-json` arguments (`key=<json>`). */
  setJson?: readonly string[];
  /** API versions the pretend cluster serves (`--api-versions`). */
  apiVersions?: readonly string[];
  /**
   * Whether a values file naming an image (support/image-values.yaml) comes
   * first, under the others: the chart requires image.repository. Default
   * true; false renders the values exactly as given.
   */
  testImage?: boolean;
}

/** The values file with the image the chart tests render with (image.repository is required). */
export const testImageValues = path.join(path.dirname(fileURLToPath(import.meta.url)), 'image-values.yaml');

function valueArgs(options: RenderOptions): string[] {
  return [
    ...(options.testImage === false ? [] : ['-f', testImageValues]),
    ...(options.values ?? []).flatMap((file) => ['-f', file]),
    ...(options.set ?? []).flatMap((pair) => ['--set', pair]),
    ...(options.setJson ?? []).flatMap((pair) => ['--set-json', pair]),
    ...(options.apiVersions ?? []).flatMap((api) => ['--api-versions', api]),
  ];
}

/** `helm template` of the chart; answers helm's result as it is, for tests of what fails. */
export function templateChart(options: RenderOptions = {}): HelmResult {
  return helm(['template', releaseName, chartDir, '--namespace', namespace, ...valueArgs(options)]);
}

/** `helm template` of the chart, parsed into its objects; throws with helm's message when it fails. */
export function renderChart(options: RenderOptions = {}): KubeObject[] {
  const result = templateChart(options);
  if (result.status !== 0) throw new Error(`helm template failed (${result.status}):\n${result.stderr}`);
  return parseManifests(result.stdout);
}

/** The objects of a multi-document manifest; a document that is not YAML fails. */
export function parseManifests(text: string): KubeObject[] {
  const objects: KubeObject[] = [];
  for (const document of parseAllDocuments(text)) {
    if (document.errors.length > 0) throw new Error(`rendered YAML does not parse: ${document.errors.map(String).join('; ')}`);
    const object: unknown = document.toJS();
    if (object !== null && object !== undefined) objects.push(object as KubeObject);
  }
  return objects;
}

/** `helm lint --strict` of the chart with these values. */
export function lintChart(options: RenderOptions = {}): HelmResult {
  return helm(['lint', '--strict', chartDir, '--namespace', namespace, ...valueArgs(options)]);
}

/** The one object of this kind and name; fails naming what was rendered instead. */
export function findObject(objects: readonly KubeObject[], kind: string, name: string): KubeObject {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (found === undefined) {
    throw new Error(`no ${kind} ${name} among: ${objects.map((object) => `${object.kind}/${object.metadata.name}`).join(', ')}`);
  }
  return found;
}

export function objectsOfKind(objects: readonly KubeObject[], kind: string): KubeObject[] {
  return objects.filter((object) => object.kind === kind);
}
