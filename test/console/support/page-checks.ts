import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

export const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Where screenshots go for a reviewer to look at: git-ignored, never committed. */
export const artifactsDir = resolve(import.meta.dirname, '../../../test-artifacts/console');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** A page expression that runs axe-core (once `axeSource` has been evaluated) and answers its violations, each with its nodes' selectors. */
export const axeRunExpression =
  "globalThis.axe.run(globalThis.document, { resultTypes: ['violations'] }).then(function (result) { return result.violations.map(function (v) { return { id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(function (n) { return n.target.join(' '); }) }; }); })";

/** Expects no serious or critical violation among axe-core's answers for page `name`. */
export function expectNoGraveViolation(violations: readonly AxeViolation[], name: string): void {
  const grave = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  expect(grave, `${name}: ${JSON.stringify(grave, null, 2)}`).toEqual([]);
}

/**
 * Runs axe-core on the page as it is (its source evaluated through the
 * browser's debugging protocol, which the page's CSP does not stop) and
 * expects no serious or critical violation.
 */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  await page.evaluate(axeSource);
  expectNoGraveViolation(await page.evaluate<AxeViolation[]>(axeRunExpression), name);
}

/** A full-page screenshot under test-artifacts/console/. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(artifactsDir, { recursive: true });
  await page.screenshot({ path: join(artifactsDir, `${name}.png`), fullPage: true });
}

/** Collects the page's Content-Security-Policy complaints and script errors, which must stay empty. */
export function watchConsole(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.text().includes('Content Security Policy')) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return problems;
}
