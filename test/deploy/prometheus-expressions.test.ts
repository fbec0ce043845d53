import { describe, expect, it } from 'vitest';
import { dashboardExpressions, readExposition, referencedNames, substitute, variableExpressions } from './support/prometheus-expressions.ts';

describe('referencedNames', () => {
  it.each([
    ['up', ['up'], []],
    ['rate(herald_push_deliveries_total[5m])', ['herald_push_deliveries_total'], []],
    [
      'sum by (gateway, outcome) (rate(herald_push_deliveries_total{job=~"$job", outcome!="not-sent"}[1m]))',
      ['herald_push_deliveries_total'],
      ['gateway', 'job', 'outcome'],
    ],
    [
      'histogram_quantile(0.99, sum by (le) (rate(x_bucket{route!~"/metrics|/healthz"}[5m]))) > 1',
      ['x_bucket'],
      ['le', 'route'],
    ],
    [
      'a > 0 unless on (namespace, job) (sum without (instance) (rate(b_total[5m])) > 0)',
      ['a', 'b_total'],
      ['instance', 'job', 'namespace'],
    ],
    ['sum(rate(c_total[1m])) / ignoring(code) group_left(team) d offset 5m', ['c_total', 'd'], ['code', 'team']],
    ['label_replace(e, "dst", "$1", "src", "(.*)") and bool f', ['e', 'f'], []],
    ['max(g{a="}",b=~"{x}"}) by (h)', ['g'], ['a', 'b', 'h']],
  ])('reads %s', (expr, metrics, labels) => {
    expect(referencedNames(expr)).toEqual({ metrics, labels });
  });
});

describe('substitute', () => {
  const values = { job: 'herald', __rate_interval: '1m' };
  it('replaces $name, ${name}, ${name:regex} and [[name]]', () => {
    expect(substitute('a{job=~"$job"}[$__rate_interval] ${job} ${job:regex} [[job]]', values, 'x')).toBe('a{job=~"herald"}[1m] herald herald herald');
  });
  it('refuses a variable it does not know, naming where it is', () => {
    expect(() => substitute('a{job=~"$jb"}', values, 'panel "Lag" target A')).toThrow('panel "Lag" target A uses $jb, which is neither');
  });
});

describe('dashboardExpressions', () => {
  it('reads the targets of every panel, inside collapsed rows too, with variables replaced', () => {
    const dashboard = {
      panels: [
        { title: 'A', targets: [{ refId: 'A', expr: 'rate(a_total[$__rate_interval])' }] },
        { title: 'Row', type: 'row', panels: [{ title: 'B', targets: [{ refId: 'B', expr: 'b{job=~"$job"}' }] }] },
        { title: 'Text', type: 'text' },
      ],
    };
    expect(dashboardExpressions(dashboard, { job: 'herald' })).toEqual([
      { source: 'panel "A" target A', expr: 'rate(a_total[1m])' },
      { source: 'panel "B" target B', expr: 'b{job=~"herald"}' },
    ]);
  });
});

describe('variableExpressions', () => {
  it('turns each label_values variable into the count by its label, other variables replaced', () => {
    const dashboard = {
      templating: {
        list: [
          { name: 'datasource', type: 'datasource', query: 'prometheus' },
          { name: 'job', type: 'query', query: { query: 'label_values(up{namespace=~"$namespace"}, job)' } },
          { name: 'role', type: 'query', query: 'label_values(up, role)' },
        ],
      },
    };
    expect(variableExpressions(dashboard, { namespace: 'push' })).toEqual([
      { source: 'variable job', variable: 'job', label: 'job', expr: 'count by (job) (up{namespace=~"push"})' },
      { source: 'variable role', variable: 'role', label: 'role', expr: 'count by (role) (up)' },
    ]);
  });

  it('refuses a variable query it cannot read', () => {
    const dashboard = { templating: { list: [{ name: 'x', type: 'query', query: 'query_result(up)' }] } };
    expect(() => variableExpressions(dashboard, {})).toThrow('variable x: query_result(up) is not label_values');
  });
});

describe('readExposition', () => {
  it('defines the sample names of each family by its type, sampled or not, and the labels its samples carry', () => {
    const exposition = readExposition(
      [
        '# HELP c_total help',
        '# TYPE c_total counter',
        '# HELP h_seconds help',
        '# TYPE h_seconds histogram',
        'h_seconds_bucket{le="0.1",gateway="apns"} 1',
        'h_seconds_sum{gateway="apns"} 0.05',
        'h_seconds_count{gateway="apns"} 1',
        '# TYPE g gauge',
        'g 3',
        '',
      ].join('\n'),
    );
    expect([...exposition.names].sort()).toEqual(['c_total', 'g', 'h_seconds_bucket', 'h_seconds_count', 'h_seconds_sum']);
    expect([...(exposition.labels.get('h_seconds_bucket') ?? [])].sort()).toEqual(['gateway', 'le']);
    expect(exposition.labels.get('c_total')).toBeUndefined();
  });
});
