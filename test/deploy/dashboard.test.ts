import { describe, expect, it } from 'vitest';
import { dashboardExpressions, dashboardPanels, readDashboard, referencedNames } from './support/prometheus-expressions.ts';

const dashboard = readDashboard();
const panels = dashboardPanels(dashboard);
const graphs = panels.filter((panel) => panel.type !== 'row');
const variables = dashboard.templating.list as { name: string; type: string; query: unknown }[];

describe('grafana-dashboard.json', () => {
  it('is a dashboard Grafana imports: uid, title, schema version, panels', () => {
    expect(dashboard.uid).toMatch(/^[\w-]{1,40}$/);
    expect(dashboard.title).toBe('Herald');
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(graphs.length).toBeGreaterThan(10);
    const ids = panels.map((panel) => panel.id);
    expect(new Set(ids).size, 'panel ids are unique').toBe(ids.length);
  });

  it('lays every panel on the 24-column grid without overlaps', () => {
    const cells = new Set<string>();
    for (const panel of panels) {
      const { x, y, w, h } = panel.gridPos as { x: number; y: number; w: number; h: number };
      expect([x, y, w, h].every(Number.isInteger), `${panel.title}: gridPos`).toBe(true);
      expect(x >= 0 && w > 0 && x + w <= 24 && h > 0, `${panel.title} fits in 24 columns`).toBe(true);
      for (let row = y; row < y + h; row += 1) {
        for (let column = x; column < x + w; column += 1) {
          expect(cells.has(`${row}:${column}`), `${panel.title} overlaps another panel at row ${row}, column ${column}`).toBe(false);
          cells.add(`${row}:${column}`);
        }
      }
    }
  });

  it('asks for a Prometheus data source and reads every query through it', () => {
    expect(variables.find((variable) => variable.name === 'datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });
    for (const panel of graphs) {
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
      expect(panel.targets.length, `${panel.title} has queries`).toBeGreaterThan(0);
      for (const target of panel.targets) expect(target.datasource, `${panel.title} ${target.refId}`).toEqual(panel.datasource);
    }
  });

  it('uses only its own variables and Grafana built-ins', () => {
    const values = Object.fromEntries(variables.map((variable) => [variable.name, '.*']));
    expect(() => dashboardExpressions(dashboard, values)).not.toThrow();
    expect(() => dashboardExpressions(dashboard, {})).toThrow(/uses \$namespace, which is neither/);
  });

  it('filters every series by namespace, job, role and instance', () => {
    for (const { source, expr } of dashboardExpressions(dashboard, { namespace: 'N', job: 'J', role: 'R', instance: 'I' })) {
      const selectors = [...expr.matchAll(/\b([a-z_:][\w:]*)\{([^}]*)\}/g)];
      expect(selectors.length, `${source} selects series`).toBeGreaterThan(0);
      for (const [, metric, matchers] of selectors) {
        expect(matchers, `${source}: ${metric}`).toContain('namespace=~"N", job=~"J", role=~"R", instance=~"I"');
      }
    }
  });

  it('covers push delivery and its outcomes, gateways, webhooks, the outcome stream, queues, scheduling, the API, logins and the processes', () => {
    const used = new Set(dashboardExpressions(dashboard, { namespace: '.*', job: '.*', role: '.*', instance: '.*' }).flatMap(({ expr }) => referencedNames(expr).metrics));
    for (const metric of [
      'herald_push_deliveries_total',
      'herald_push_failures_total',
      'herald_push_retries_total',
      'herald_webhook_events_delivered_total',
      'herald_webhook_events_dropped_total',
      'herald_webhook_requests_total',
      'herald_webhook_queued_events',
      'herald_outcome_stream_events_produced_total',
      'herald_outcome_stream_events_dropped_total',
      'herald_pushes_accepted_total',
      'herald_gateway_request_duration_seconds_bucket',
      'herald_gateway_sessions',
      'herald_bus_consumer_lag',
      'herald_push_tasks_in_flight',
      'herald_push_delivery_window',
      'herald_scheduled_push_lateness_seconds_bucket',
      'herald_http_request_duration_seconds_count',
      'herald_http_request_duration_seconds_bucket',
      'herald_login_failures_total',
      'herald_account_locks_total',
      'herald_process_resident_memory_bytes',
      'herald_nodejs_eventloop_lag_p99_seconds',
      'herald_dependency_up',
    ]) {
      expect(used, metric).toContain(metric);
    }
  });
});
