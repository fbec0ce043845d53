import { parseArgs } from 'node:util';
import { helm, parseManifests, type KubeObject } from '../../deploy/support/helm-chart.ts';

/**
 * The objects a documented `helm install|upgrade|template <release> <chart>
 * [flags]` would apply, rendered with `helm template` and the same release,
 * namespace and values (no cluster here). Flags that only steer the install
 * (`--wait`, `--create-namespace`) are dropped; any other flag fails.
 */
export function helmTemplateOf(args: readonly string[], cwd: string): KubeObject[] {
  const [command, ...rest] = args;
  if (command === 'lint') {
    const lint = helm(['lint', ...rest.map((arg) => (arg.startsWith('-') ? arg : `${cwd}/${arg}`.replace(`${cwd}//`, '/')))]);
    if (lint.status !== 0) throw new Error(`helm ${args.join(' ')}: ${lint.stdout}${lint.stderr}`);
    return [];
  }
  if (!['install', 'upgrade', 'template'].includes(command ?? '')) throw new Error(`helm ${command}: no check for it`);
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      namespace: { type: 'string', short: 'n' },
      values: { type: 'string', short: 'f', multiple: true },
      set: { type: 'string', multiple: true },
      'set-json': { type: 'string', multiple: true },
      'set-string': { type: 'string', multiple: true },
      wait: { type: 'boolean' },
      'create-namespace': { type: 'boolean' },
      install: { type: 'boolean' },
      atomic: { type: 'boolean' },
      timeout: { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  const [release, chart] = positionals;
  if (positionals.length !== 2 || release === undefined || chart === undefined) throw new Error(`helm ${args.join(' ')}: expected a release name and a chart`);
  const flags = [
    ...(values.namespace === undefined ? [] : ['--namespace', values.namespace]),
    ...(values.values ?? []).flatMap((file) => ['-f', file.startsWith('/') ? file : `${cwd}/${file}`]),
    ...(values.set ?? []).flatMap((pair) => ['--set', pair]),
    ...(values['set-json'] ?? []).flatMap((pair) => ['--set-json', pair]),
    ...(values['set-string'] ?? []).flatMap((pair) => ['--set-string', pair]),
  ];
  const result = helm(['template', release, chart.startsWith('/') ? chart : `${cwd}/${chart}`, ...flags]);
  if (result.status !== 0) throw new Error(`helm ${args.join(' ')} would fail: ${result.stderr.trim()}`);
  return parseManifests(result.stdout);
}
