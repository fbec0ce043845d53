import type { ScenarioResult } from './scenarios.ts';

export interface StoreReport {
  store: string;
  date: string;
  results: ScenarioResult[];
}

/** One row per scenario; for each store its req/s, p50 and p99 (ms), and failed requests when there were any. */
export function sideBySide(reports: readonly StoreReport[]): string {
  const scenarios = [...new Set(reports.flatMap((report) => report.results.map((result) => result.scenario)))];
  const width = 34;
  const group = (texts: string[]) => texts.map((text, index) => text.padStart(index === 0 ? 8 : 6)).join(' ');
  const header = [''.padEnd(width), ...reports.map((report) => `| ${report.store}`.padEnd(width))].join(' ');
  const columns = ['scenario'.padEnd(width), ...reports.map(() => `| ${group(['req/s', 'p50', 'p99'])}`.padEnd(width))].join(' ');
  const rows = scenarios.map((scenario) =>
    [
      scenario.padEnd(width),
      ...reports.map((report) => {
        const result = report.results.find((candidate) => candidate.scenario === scenario);
        if (!result) return '| -'.padEnd(width);
        const failed = result.non2xx + result.errors;
        return `| ${group([String(result.requestsPerSecond), String(result.p50Ms), String(result.p99Ms)])}${failed > 0 ? ` (${failed} failed)` : ''}`.padEnd(width);
      }),
    ].join(' '),
  );
  const dates = reports.map((report) => `${report.store} measured ${report.date}`);
  return [header, columns, ...rows, ...dates].join('\n');
}
