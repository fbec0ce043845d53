import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IPodTemplateSpec } from 'kubernetes-models/v1/PodTemplateSpec';
import { objectsOfKind, type KubeObject } from './helm-chart.ts';

/** A rendered Deployment, typed after the Kubernetes API (every field optional, as the API has it). */
export type RoleDeployment = IDeployment & KubeObject;

/** A rendered Job. */
export type RenderedJob = IJob & KubeObject;

/** What runs Herald's pods. */
export type Workload = RoleDeployment | RenderedJob;

/** The rendered Deployments, by the role their name ends with (`herald-api` → `api`). */
export function deploymentsByRole(objects: readonly KubeObject[]): Map<string, RoleDeployment> {
  return new Map(objectsOfKind(objects, 'Deployment').map((object) => [object.metadata.name.replace(/^herald-/, ''), object as RoleDeployment]));
}

export function deploymentOf(objects: readonly KubeObject[], role: string): RoleDeployment {
  const deployment = deploymentsByRole(objects).get(role);
  if (deployment === undefined) throw new Error(`no Deployment for the ${role} role`);
  return deployment;
}

export function podTemplate(workload: Workload): IPodTemplateSpec {
  const template = workload.spec?.template;
  if (template === undefined) throw new Error(`${workload.metadata.name} has no pod template`);
  return template;
}

export function podSpec(workload: Workload): IPodSpec {
  const spec = podTemplate(workload).spec;
  if (spec === undefined) throw new Error(`${workload.metadata.name} has no pod spec`);
  return spec;
}

/** The Herald container of a workload's pod. */
export function heraldContainer(workload: Workload): IContainer {
  const container = podSpec(workload).containers.find((candidate) => candidate.name === 'herald');
  if (container === undefined) throw new Error(`${workload.metadata.name} has no herald container`);
  return container;
}

/** The init container that writes Herald's config file. */
export function configContainer(workload: Workload): IContainer {
  const container = podSpec(workload).initContainers?.find((candidate) => candidate.name === 'config');
  if (container === undefined) throw new Error(`${workload.metadata.name} has no config init container`);
  return container;
}

/** Every container of the pod, init containers included. */
export function allContainers(workload: Workload): IContainer[] {
  const spec = podSpec(workload);
  return [...(spec.initContainers ?? []), ...spec.containers];
}

/** A container's environment, by variable name. */
export function envOf(container: IContainer): Map<string, IEnvVar> {
  return new Map((container.env ?? []).map((variable) => [variable.name, variable]));
}

/** A plain variable's value; fails when it is absent or comes from elsewhere. */
export function envValue(container: IContainer, name: string): string {
  const value = envOf(container).get(name)?.value;
  if (value === undefined) throw new Error(`${container.name} has no plain ${name}`);
  return value;
}

/** Where each volume is mounted in a container, by volume name. */
export function mountsOf(container: IContainer): Map<string, { mountPath: string; readOnly: boolean }> {
  return new Map((container.volumeMounts ?? []).map((mount) => [mount.name, { mountPath: mount.mountPath, readOnly: mount.readOnly === true }]));
}
