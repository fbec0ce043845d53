import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { prometheusTool } from './support/prometheus-tools.ts';

it('finds promtool and prometheus on this machine', () => {
  expect(prometheusTool('promtool')).toMatch(/\/promtool$/);
  expect(prometheusTool('prometheus')).toMatch(/\/prometheus$/);
});

it('fails, saying how to install it, where Prometheus is missing: the tests that need it fail rather than skip', () => {
  const empty = mkdtempSync(join(tmpdir(), 'herald-no-prometheus-'));
  expect(() => prometheusTool('promtool', [empty])).toThrow(`promtool is not installed (looked in ${empty}); install Debian's prometheus package`);
});
