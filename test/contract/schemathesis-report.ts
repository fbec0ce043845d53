import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What schemathesis sent and what Herald answered, read from its NDJSON report. */
export interface SchemathesisTally {
  /** Every request made, in every phase. */
  requests: number;
  /** How many answers had each status (`none` when no answer came). */
  statuses: Record<string, number>;
  /** Requests per operation label (`POST /1.1/users`). */
  operations: Record<string, number>;
  /** Answers of 500 or more, as `<status> <method> <uri>`, for the failure message. */
  serverErrors: string[];
}

interface Interaction {
  request: { method: string; uri: string };
  response?: { status_code: number } | null;
}

interface ScenarioFinished {
  recorder: { label: string; interactions?: Record<string, Interaction> };
}

/** Reads the `ndjson-*.ndjson` report schemathesis wrote into `dir`. */
export function tallySchemathesisReport(dir: string): SchemathesisTally {
  const file = readdirSync(dir).find((name) => name.endsWith('.ndjson'));
  if (file === undefined) throw new Error(`schemathesis wrote no NDJSON report into ${dir}`);
  const tally: SchemathesisTally = { requests: 0, statuses: {}, operations: {}, serverErrors: [] };
  for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const event = JSON.parse(line) as { ScenarioFinished?: ScenarioFinished };
    const finished = event.ScenarioFinished;
    if (finished === undefined) continue;
    for (const interaction of Object.values(finished.recorder.interactions ?? {})) {
      tally.requests += 1;
      const status = interaction.response ? String(interaction.response.status_code) : 'none';
      tally.statuses[status] = (tally.statuses[status] ?? 0) + 1;
      const label = `${interaction.request.method} ${new URL(interaction.request.uri).pathname}`;
      tally.operations[finished.recorder.label || label] = (tally.operations[finished.recorder.label || label] ?? 0) + 1;
      if (interaction.response && interaction.response.status_code >= 500) tally.serverErrors.push(`${status} ${label}`);
    }
  }
  return tally;
}
