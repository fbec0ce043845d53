import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';

/** The chart's monitoring files, which these tests check. */
export const monitoringFiles = {
  dir: resolve(import.meta.dirname, '../../../charts/herald/files'),
  alerts: resolve(import.meta.dirname, '../../../charts/herald/files/alerts.yaml'),
  alertTests: resolve(import.meta.dirname, '../../../charts/herald/files/alerts.test.yaml'),
  dashboard: resolve(import.meta.dirname, '../../../charts/herald/files/grafana-dashboard.json'),
};

/** One PromQL expression and where it comes from, for failure messages. */
export interface SourcedExpression {
  source: string;
  expr: string;
}

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

// Dashboard JSON is untyped; these tests read the fields Grafana reads.
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Every alerting rule of a rules file (top-level `groups:`). */
export function readAlertRules(path = monitoringFiles.alerts): AlertRule[] {
  const file = parseYaml(readFileSync(path, 'utf8')) as { groups: { name: string; rules: AlertRule[] }[] };
  return file.groups.flatMap((group) => group.rules);
}

export function readDashboard(path = monitoringFiles.dashboard): Json {
  return JSON.parse(readFileSync(path, 'utf8')) as Json;
}

/** Every panel of a dashboard, those inside collapsed rows included. */
export function dashboardPanels(dashboard: Json): Json[] {
  return (dashboard.panels as Json[]).flatMap((panel) => [panel, ...((panel.panels as Json[] | undefined) ?? [])]);
}

/** Variables Grafana itself defines, with the value a test substitutes for each. */
export const grafanaBuiltins: Readonly<Record<string, string>> = {
  __rate_interval: '1m',
  __interval: '15s',
  __range: '1h',
};

/**
 * Every `targets[].expr` of a dashboard with its template variables replaced
 * (`$name`, `${name}`, `${name:format}`, `[[name]]`) by `values` or a Grafana
 * built-in. Throws on a variable that is neither: Grafana would send it as is.
 */
export function dashboardExpressions(dashboard: Json, values: Record<string, string>): SourcedExpression[] {
  const known = { ...grafanaBuiltins, ...values };
  const expressions: SourcedExpression[] = [];
  for (const panel of dashboardPanels(dashboard)) {
    for (const target of (panel.targets as Json[] | undefined) ?? []) {
      if (typeof target.expr !== 'string') continue;
      const source = `panel "${panel.title}" target ${target.refId}`;
      expressions.push({ source, expr: substitute(target.expr, known, source) });
    }
  }
  return expressions;
}

/**
 * The query of each `label_values(<selector>, <label>)` template variable as
 * the PromQL Grafana's answer amounts to, `count by (<label>) (<selector>)`,
 * with the other variables replaced as in `dashboardExpressions`.
 */
export function variableExpressions(dashboard: Json, values: Record<string, string>): (SourcedExpression & { variable: string; label: string })[] {
  const known = { ...grafanaBuiltins, ...values };
  return (dashboard.templating.list as Json[])
    .filter((variable) => variable.type === 'query')
    .map((variable) => {
      const query = typeof variable.query === 'string' ? variable.query : (variable.query as Json).query;
      const source = `variable ${variable.name}`;
      const parts = /^label_values\((.+),\s*(\w+)\)$/.exec(query as string);
      if (parts === null) throw new Error(`${source}: ${query} is not label_values(<selector>, <label>)`);
      const [, selector, label] = parts as unknown as [string, string, string];
      return { source, variable: variable.name as string, label, expr: `count by (${label}) (${substitute(selector, known, source)})` };
    });
}

/** Replaces Grafana template variables in `text`; throws, naming `source`, on one not in `values`. */
export function substitute(text: string, values: Record<string, string>, source: string): string {
  return text.replace(/\$\{(\w+)(?::\w+)?\}|\[\[(\w+)\]\]|\$(\w+)/g, (_match, braced?: string, bracketed?: string, plain?: string) => {
    const name = (braced ?? bracketed ?? plain) as string;
    const value = values[name];
    if (value === undefined) throw new Error(`${source} uses $${name}, which is neither a dashboard variable nor a Grafana built-in`);
    return value;
  });
}

const keywords = new Set(['and', 'or', 'unless', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'offset', 'inf', 'nan']);

/** What an expression refers to: the metric names it selects and the label names it matches, groups or joins on. */
export interface ExpressionNames {
  metrics: string[];
  labels: string[];
}

/**
 * The metric and label names a PromQL expression refers to, read by a small
 * tokenizer: enough for the rules and panels Herald ships (selectors,
 * functions, aggregations with `by`/`without`, `on`/`ignoring` joins,
 * `group_left(...)`), not a full PromQL parser. A name followed by `(`, `by`
 * or `without` is a function or aggregation; any other name outside braces,
 * strings and keywords is a metric.
 */
export function referencedNames(expr: string): ExpressionNames {
  const metrics = new Set<string>();
  const labels = new Set<string>();
  const tokens = tokenize(expr);
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i] as Token;
    const next = tokens[i + 1];
    if (token.kind === 'matchers') {
      for (const match of token.text.matchAll(/([a-zA-Z_]\w*)\s*(?:=~|!~|!=|=)/g)) labels.add(match[1] as string);
      continue;
    }
    if (token.kind !== 'name') continue;
    if (['by', 'without', 'on', 'ignoring', 'group_left', 'group_right'].includes(token.text) && next?.text === '(') {
      // A list of label names up to the closing parenthesis.
      let j = i + 2;
      for (; j < tokens.length && tokens[j]?.text !== ')'; j += 1) {
        const inner = tokens[j] as Token;
        if (inner.kind === 'name') labels.add(inner.text);
      }
      i = j;
      continue;
    }
    if (keywords.has(token.text.toLowerCase())) continue;
    // A function, or an aggregation with its grouping first: `sum by (job) (...)`.
    if (next?.text === '(' || (next?.kind === 'name' && (next.text === 'by' || next.text === 'without'))) continue;
    metrics.add(token.text);
  }
  return { metrics: [...metrics].sort(), labels: [...labels].sort() };
}

interface Token {
  kind: 'name' | 'matchers' | 'string' | 'number' | 'range' | 'other';
  text: string;
}

function tokenize(expr: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s+|#[^\n]*|("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)|(\{(?:[^}"']|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')*\})|(\[[^\]]*\])|(\d[\w.]*|\.\d\w*)|([a-zA-Z_:][\w:]*)|(.)/gy;
  for (let match = pattern.exec(expr); match !== null && match[0] !== ''; match = pattern.exec(expr)) {
    const [, string, matchers, range, number, name, other] = match;
    if (string !== undefined) tokens.push({ kind: 'string', text: string });
    else if (matchers !== undefined) tokens.push({ kind: 'matchers', text: matchers });
    else if (range !== undefined) tokens.push({ kind: 'range', text: range });
    else if (number !== undefined) tokens.push({ kind: 'number', text: number });
    else if (name !== undefined) tokens.push({ kind: 'name', text: name });
    else if (other !== undefined) tokens.push({ kind: 'other', text: other });
  }
  return tokens;
}

/** The series names and label names a Prometheus text exposition defines. */
export interface Exposition {
  /** Every name a sample of the exposition may carry: `name` for counters and gauges, `_bucket`, `_sum`, `_count` for histograms. */
  names: Set<string>;
  /** Label names seen on each family's samples (`le` for histogram buckets). */
  labels: Map<string, Set<string>>;
}

/**
 * Reads a text exposition (what `/metrics` serves). A family is defined by its
 * `# TYPE` line, so a labelled counter nothing has incremented yet still counts
 * as defined, though it has no samples.
 */
export function readExposition(text: string): Exposition {
  const names = new Set<string>();
  const labels = new Map<string, Set<string>>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type !== null) {
      const [, family, kind] = type as unknown as [string, string, string];
      const suffixes = kind === 'histogram' ? ['_bucket', '_sum', '_count'] : kind === 'summary' ? ['', '_sum', '_count'] : [''];
      for (const suffix of suffixes) names.add(`${family}${suffix}`);
      continue;
    }
    const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? /.exec(line);
    if (sample === null) continue;
    const [, name, labelText] = sample as unknown as [string, string, string | undefined];
    const seen = labels.get(name) ?? new Set<string>();
    for (const match of (labelText ?? '').matchAll(/([a-zA-Z_]\w*)="/g)) seen.add(match[1] as string);
    labels.set(name, seen);
  }
  return { names, labels };
}
