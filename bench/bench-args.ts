/** Command-line helpers the benchmark entry points share. */

/** Prints `bench: <message>` and exits with 2: a wrong argument, or a run that cannot be trusted. */
export function fail(message: string): never {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}

/** The integer an option was given, at least `min`; exits through `fail` otherwise. An option not given stays undefined. */
export function count(name: string, text: string, min: number): number;
export function count(name: string, text: string | undefined, min: number): number | undefined;
export function count(name: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) fail(`--${name} must be an integer ≥ ${min}, not ${text}`);
  return value;
}
