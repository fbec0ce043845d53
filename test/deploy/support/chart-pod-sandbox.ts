import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { IContainer } from 'kubernetes-models/v1/Container';
import { allContainers, configContainer, heraldContainer, podSpec, type Workload } from './chart-pods.ts';
import { findObject, type KubeObject } from './helm-chart.ts';

/** What the init container did. */
export interface InitResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * A rendered pod played out on this machine: each volume becomes a folder
 * (the ConfigMap laid out as the kubelet does, behind `..data` symlinks; the
 * Secret's entries as files), the init container runs with its own command
 * and environment on this Node, and the Herald container's environment is
 * resolved (Secret references included) with every mount path mapped to its
 * folder, ready for Herald's own config loader.
 */
export class ChartPodSandbox {
  readonly root: string;
  readonly #workload: Workload;
  readonly #secret: Record<string, string>;
  /** Mount path in the pod → folder here, longest first. */
  readonly #mounts: [string, string][];

  constructor(objects: readonly KubeObject[], workload: Workload, secret: Record<string, string>) {
    this.root = mkdtempSync(path.join(tmpdir(), 'herald-chart-pod-'));
    this.#workload = workload;
    this.#secret = secret;
    const volumes = podSpec(workload).volumes ?? [];
    const mounts = new Map<string, string>();
    for (const container of allContainers(workload)) {
      for (const mount of container.volumeMounts ?? []) mounts.set(mount.mountPath, path.join(this.root, mount.name));
    }
    this.#mounts = [...mounts].sort(([a], [b]) => b.length - a.length);
    for (const volume of volumes) {
      const dir = path.join(this.root, volume.name);
      mkdirSync(dir, { recursive: true });
      if (volume.configMap !== undefined) {
        const configMap = findObject(objects, 'ConfigMap', volume.configMap.name ?? '') as KubeObject & { data: Record<string, string> };
        this.#layOut(dir, configMap.data);
      }
      if (volume.secret !== undefined) this.#layOut(dir, secret);
    }
  }

  /** The kubelet's layout of a ConfigMap or Secret volume: files in a timestamped folder, reached through `..data`. */
  #layOut(dir: string, entries: Record<string, string>): void {
    const version = path.join(dir, '..2026_01_01_00_00_00.000000001');
    mkdirSync(version);
    for (const [key, value] of Object.entries(entries)) {
      writeFileSync(path.join(version, key), value);
      symlinkSync(path.join('..data', key), path.join(dir, key));
    }
    symlinkSync(path.basename(version), path.join(dir, '..data'));
  }

  /** A path in the pod as a path here. */
  local(podPath: string): string {
    for (const [mountPath, dir] of this.#mounts) {
      if (podPath === mountPath || podPath.startsWith(`${mountPath}/`)) return dir + podPath.slice(mountPath.length);
    }
    return podPath;
  }

  /** A container's environment, Secret references read, paths mapped. */
  environment(container: IContainer): Record<string, string> {
    const env: Record<string, string> = {};
    for (const variable of container.env ?? []) {
      const reference = variable.valueFrom?.secretKeyRef;
      if (reference !== undefined) {
        const value = this.#secret[reference.key];
        if (value === undefined) throw new Error(`${container.name}: ${variable.name} refers to the missing Secret entry ${reference.key}`);
        env[variable.name] = value;
      } else {
        env[variable.name] = this.local(variable.value ?? '');
      }
    }
    return env;
  }

  /** Runs the config init container's command on this Node. */
  runInit(): InitResult {
    const init = configContainer(this.#workload);
    const [command, ...args] = init.command ?? [];
    if (command !== 'node') throw new Error(`the init container runs ${String(command)}, not node`);
    const result = spawnSync(process.execPath, args.map((arg) => this.local(arg)), {
      encoding: 'utf8',
      cwd: this.root,
      env: { PATH: process.env.PATH, ...this.environment(init) },
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  /** The Herald container's environment, as Herald would see it. */
  heraldEnvironment(): Record<string, string> {
    return this.environment(heraldContainer(this.#workload));
  }

  /** The config file the init container wrote, parsed. */
  writtenConfig(): Record<string, unknown> {
    return JSON.parse(readFileSync(this.local('/run/herald/herald.json'), 'utf8')) as Record<string, unknown>;
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}
