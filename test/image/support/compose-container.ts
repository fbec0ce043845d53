import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { imageEnvironment, mountsOf, type ComposeService } from './compose-file.ts';

/**
 * A service of docker-compose.yml played out on this machine, without an
 * engine: each mount becomes a folder here (a bind mount its host folder, a
 * named volume a folder under `volumesDir`), and the environment is the
 * image's ENV under the service's, with every path inside a mount mapped to
 * its folder. The config file HERALD_CONFIG names is rendered the same way
 * (its paths to mounted secrets mapped), so that Herald's own loader reads
 * what the container would.
 */
export class ComposeContainer {
  readonly name: string;
  readonly service: ComposeService;
  readonly #volumesDir: string;
  /** Mount target → folder here, longest first. */
  readonly #mounts: [string, string][];

  constructor(name: string, service: ComposeService, volumesDir: string) {
    this.name = name;
    this.service = service;
    this.#volumesDir = volumesDir;
    this.#mounts = mountsOf(service)
      .map((mount): [string, string] => {
        const local = mount.kind === 'bind' ? mount.source : join(volumesDir, 'volumes', mount.source);
        mkdirSync(local, { recursive: true });
        return [mount.target, local];
      })
      .sort(([a], [b]) => b.length - a.length);
  }

  /** A path in the container as a path here; a path outside every mount stays as it is. */
  local(containerPath: string): string {
    for (const [target, dir] of this.#mounts) {
      if (containerPath === target || containerPath.startsWith(`${target}/`)) return dir + containerPath.slice(target.length);
    }
    return containerPath;
  }

  /** Every container path inside a mount that `text` names, mapped. */
  #mapPaths(text: string): string {
    let mapped = text;
    for (const [target, dir] of this.#mounts) mapped = mapped.replace(new RegExp(`${target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=/|\\b|$)`, 'g'), dir);
    return mapped;
  }

  /** The environment Herald starts with in this container, paths mapped; HERALD_CONFIG names the rendered config file. */
  environment(): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries({ ...imageEnvironment(), ...this.service.environment })) env[name] = this.#mapPaths(String(value));
    if (env.HERALD_CONFIG !== undefined && env.HERALD_CONFIG !== '') env.HERALD_CONFIG = this.#renderConfig(env.HERALD_CONFIG);
    return env;
  }

  #renderConfig(file: string): string {
    const rendered = join(this.#volumesDir, `${this.name}-config${extname(file)}`);
    writeFileSync(rendered, this.#mapPaths(readFileSync(file, 'utf8')));
    return rendered;
  }
}
