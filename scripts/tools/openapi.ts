import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from '../../src/api/openapi/openapi-document.ts';

/**
 * docs/openapi.json, the shipped copy of the document Herald serves at
 * `GET /1.1/openapi.json` (src/api/openapi/).
 *
 * `npm run openapi` rewrites it; `npm run openapi -- --check` fails when it
 * is stale (test/api/openapi-document.test.ts does the same in `npm test`).
 */

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const shippedOpenApiFile = path.join(repoRoot, 'docs/openapi.json');

/** The document as the file holds it: two-space JSON and a final newline. */
export function openApiFileText(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}

function main(): void {
  const text = openApiFileText();
  if (process.argv.includes('--check')) {
    if (readFileSync(shippedOpenApiFile, 'utf8') !== text) {
      process.stderr.write('docs/openapi.json is stale: run npm run openapi\n');
      process.exitCode = 1;
    }
    return;
  }
  writeFileSync(shippedOpenApiFile, text);
  process.stdout.write(`wrote ${path.relative(repoRoot, shippedOpenApiFile)}\n`);
}

if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) main();
