import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = resolve(import.meta.dirname, '../../src');

/**
 * Which top-level folders of `src/` each folder may import from (besides
 * itself). The ground floor (`core`, `query`, `config`) knows no domain;
 * the HTTP/2 client is a library; the adapters (`store`, `bus`, `coord`,
 * `mail`, `sms`) know only the ports they implement; the domain
 * (`accounts`, `devices`, `push`) knows no transport, adapter or role.
 */
const allowed: Record<string, readonly string[]> = {
  core: ['query'],
  query: ['core'],
  config: ['core'],
  http2: ['core'],
  store: ['core', 'config', 'query'],
  bus: ['core', 'config'],
  coord: ['core', 'config'],
  mail: ['core', 'config'],
  sms: ['core', 'config'],
  accounts: ['core', 'config', 'query'],
  devices: ['core', 'config', 'query', 'accounts', 'push'],
  push: ['core', 'config', 'query', 'accounts', 'devices', 'http2'],
  // A transport like api/: it calls the domain's rules with the signed-in account's rights, and imports no transport, adapter or role.
  console: ['core', 'config', 'query', 'accounts', 'devices', 'push'],
};

/** Every `from '…'` of a relative import in the TypeScript files under `dir`, with the file it is in. */
function relativeImports(dir: string): { file: string; target: string }[] {
  const found: { file: string; target: string }[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = join(entry.parentPath, entry.name);
    for (const match of readFileSync(file, 'utf8').matchAll(/\bfrom\s+'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)/g)) {
      found.push({ file, target: resolve(dirname(file), match[1] ?? match[2] ?? '') });
    }
  }
  return found;
}

function topFolder(path: string): string {
  return relative(src, path).split('/')[0] ?? '';
}

describe('the layers of src/', () => {
  for (const [folder, mayUse] of Object.entries(allowed)) {
    it(`${folder}/ imports only from ${mayUse.length === 0 ? 'itself' : mayUse.join(', ')}`, () => {
      let imports: { file: string; target: string }[];
      try {
        imports = relativeImports(join(src, folder));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return expect.fail(`src/${folder} is missing: update the layer table`);
        throw error;
      }
      expect(imports.length).toBeGreaterThan(0);
      const wrong = imports
        .filter(({ target }) => {
          const top = topFolder(target);
          return top !== folder && !mayUse.includes(top);
        })
        .map(({ file, target }) => `${relative(src, file)} → ${relative(src, target)}`);
      expect(wrong).toEqual([]);
    });
  }
});
