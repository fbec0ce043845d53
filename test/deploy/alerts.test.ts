import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { ciValues, findObject, prometheusOperatorApis, renderChart, type KubeObject } from './support/helm-chart.ts';
import { monitoringFiles, readAlertRules, type AlertRule } from './support/prometheus-expressions.ts';
import { runPromtool } from './support/prometheus-tools.ts';

const rules = readAlertRules();

/** Prometheus durations (`90s`, `10m`, `1h30m`) in seconds. */
function seconds(duration: string): number {
  let total = 0;
  for (const [, amount, unit] of duration.matchAll(/(\d+)(ms|s|m|h|d)/g)) {
    total += Number(amount) * { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400 }[unit as 'ms' | 's' | 'm' | 'h' | 'd'];
  }
  return total;
}

describe('alerts.yaml', () => {
  it('passes promtool check rules', async () => {
    const run = await runPromtool(['check', 'rules', 'alerts.yaml'], { cwd: monitoringFiles.dir });
    expect(run.output).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(run.code, run.output).toBe(0);
  });

  it("passes promtool's unit tests in alerts.test.yaml", async () => {
    const run = await runPromtool(['test', 'rules', 'alerts.test.yaml'], { cwd: monitoringFiles.dir });
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain('SUCCESS');
  });

  it('has the alerts the deployment needs', () => {
    expect(rules.map((rule) => rule.alert).sort()).toEqual([
      'HeraldApiErrorRatioHigh',
      'HeraldApiLatencyHigh',
      'HeraldConsumerLagGrowing',
      'HeraldDeliveriesStalled',
      'HeraldDependencyNotReady',
      'HeraldGatewayErrorRatioHigh',
      'HeraldGatewaySessionsDown',
      'HeraldNoSchedulerLeads',
      'HeraldRoleDown',
      'HeraldScheduledPushesLate',
    ]);
  });

  it.each(rules.map((rule) => [rule.alert, rule] as const))('%s has a severity, a summary and a description that says what to do', (_name, rule) => {
    expect(['critical', 'warning']).toContain(rule.labels?.severity);
    expect(rule.annotations?.summary?.length).toBeGreaterThan(10);
    expect(rule.annotations?.description).toMatch(/What to do: \S/);
    // Long enough to ride out a blip (a scrape or two, a restart), short enough to matter.
    expect(seconds(rule.for ?? '0s')).toBeGreaterThanOrEqual(120);
    expect(seconds(rule.for ?? '0s')).toBeLessThanOrEqual(1800);
  });

  it('has unit tests that show each alert firing and each quiet', () => {
    const file = parseYaml(readFileSync(monitoringFiles.alertTests, 'utf8')) as {
      tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[];
    };
    const cases = file.tests.flatMap((test) => test.alert_rule_test ?? []);
    for (const { alert } of rules) {
      const own = cases.filter((rule) => rule.alertname === alert);
      expect(own.some((rule) => (rule.exp_alerts ?? []).length > 0), `${alert} fires in a test`).toBe(true);
      expect(own.some((rule) => (rule.exp_alerts ?? []).length === 0), `${alert} stays quiet in a test`).toBe(true);
    }
  });
});

describe("the chart's HeraldRoleAbsent rules", () => {
  // What the chart renders for release herald in namespace push with the production values: a rule per role.
  const rendered = findObject(renderChart({ values: [ciValues.production], apiVersions: prometheusOperatorApis }), 'PrometheusRule', 'herald') as KubeObject & {
    spec: { groups: { name: string; rules: AlertRule[] }[] };
  };
  const presence = rendered.spec.groups.filter((group) => group.name === 'herald-presence');

  it("pass promtool check rules and promtool's unit tests in test/deploy/support/presence-alerts.test.yaml", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-presence-'));
    try {
      writeFileSync(join(dir, 'presence.yaml'), toYaml({ groups: presence }));
      copyFileSync(resolve(import.meta.dirname, 'support/presence-alerts.test.yaml'), join(dir, 'presence-alerts.test.yaml'));
      const check = await runPromtool(['check', 'rules', 'presence.yaml'], { cwd: dir });
      expect(check.output).toContain('SUCCESS: 4 rules found');
      const run = await runPromtool(['test', 'rules', 'presence-alerts.test.yaml'], { cwd: dir });
      expect(run.code, run.output).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('each page with a severity, a summary and a description that says what to do', () => {
    const rules = presence.flatMap((group) => group.rules);
    expect(rules.map((rule) => rule.alert)).toEqual(['HeraldRoleAbsent', 'HeraldRoleAbsent', 'HeraldRoleAbsent', 'HeraldRoleAbsent']);
    for (const rule of rules) {
      expect(rule.labels?.severity).toBe('critical');
      expect(rule.annotations?.summary?.length).toBeGreaterThan(10);
      expect(rule.annotations?.description).toMatch(/What to do: \S/);
      expect(seconds(rule.for ?? '0s')).toBeGreaterThanOrEqual(120);
    }
  });
});
