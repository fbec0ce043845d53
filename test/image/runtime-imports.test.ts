import { readdirSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };

/**
 * The module specifiers a file loads when Node runs it: static imports and
 * re-exports that are not `import type` / `export type` (type stripping
 * erases only those; `import { type A } from 'x'` still loads x), dynamic
 * `import()` and `require()`. A dynamic import of a computed name cannot be
 * checked, so it is reported as such.
 */
function runtimeSpecifiers(fileName: string, text: string): string[] {
  const specifiers: string[] = [];
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly && ts.isStringLiteral(node.moduleSpecifier)) {
      specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && !node.isTypeOnly && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))) {
      const [argument] = node.arguments;
      specifiers.push(argument !== undefined && ts.isStringLiteralLike(argument) ? argument.text : `<computed at ${fileName}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}>`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers;
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
}

/** Every package src/ loads at run time, with the files that load it. Declaration files (.d.ts) never run. */
function packagesLoadedBySrc(): Map<string, string[]> {
  const loaded = new Map<string, string[]>();
  const files = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
  for (const file of files) {
    const path = `src/${file}`;
    for (const specifier of runtimeSpecifiers(path, readFileSync(join(root, path), 'utf8'))) {
      if (specifier.startsWith('.') || specifier.startsWith('/') || isBuiltin(specifier)) continue;
      const name = specifier.startsWith('<computed') ? specifier : packageOf(specifier);
      loaded.set(name, [...(loaded.get(name) ?? []), path]);
    }
  }
  return loaded;
}

describe('what the service loads at run time', () => {
  const loaded = packagesLoadedBySrc();

  it('is a production dependency, so that an install without development dependencies (the image) runs it', () => {
    const missing = [...loaded].filter(([name]) => !Object.hasOwn(packageJson.dependencies, name)).map(([name, files]) => `${name} (${files.join(', ')})`);
    expect(missing, 'packages src/ loads that `npm ci --omit=dev` would not install').toEqual([]);
  });

  it('is every production dependency: one src/ never loads belongs with the development tooling', () => {
    const unused = Object.keys(packageJson.dependencies).filter((name) => !loaded.has(name));
    expect(unused, 'production dependencies no file of src/ loads').toEqual([]);
  });

  it('is read from the code as Node runs it: type-only imports do not count, dynamic imports do', () => {
    const text = [
      "import type { Redis } from 'typeonly';",
      "import { type Kafka } from 'stillloaded';",
      "export type { X } from 'typeexport';",
      "export { y } from 'reexported';",
      "const lazy = await import('lazy/sub');",
      "const name = 'x'; await import(name);",
    ].join('\n');
    expect(runtimeSpecifiers('example.ts', text)).toEqual(['stillloaded', 'reexported', 'lazy/sub', '<computed at example.ts:6>']);
    expect(['@grpc/grpc-js/build/src/x', 'zod/v4', 'express'].map(packageOf)).toEqual(['@grpc/grpc-js', 'zod', 'express']);
  });
});
