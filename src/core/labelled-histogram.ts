import type { Registry } from 'prom-client';

/** One line of the exposition, as prom-client's registry formats it. */
interface Sample {
  metricName: string;
  labels: Record<string, string | number>;
  value: number;
}

/**
 * A Prometheus histogram over a fixed, known set of label values, for the
 * per-request paths: `observe` finds the bucket and adds, nothing more
 * (prom-client's Histogram checks and hashes the labels on every call).
 * Registered in prom-client registries like any of its metrics and exposed
 * in the same text format (`_bucket` with `le`, `_sum`, `_count`).
 */
export class LabelledHistogram<V extends string> {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  readonly #label: string;
  readonly #bounds: readonly number[];
  /** Per label value: a count per bucket (non-cumulative, the last is +Inf), then the sum at the end. */
  readonly #series: Record<V, Float64Array>;

  constructor(options: { name: string; help: string; label: string; values: readonly V[]; buckets: readonly number[]; registers: Registry[] }) {
    const bounds = [...options.buckets];
    if (bounds.some((bound, i) => !Number.isFinite(bound) || (i > 0 && bound <= (bounds[i - 1] as number)))) {
      throw new RangeError(`${options.name}: buckets must be finite and increasing`);
    }
    this.name = options.name;
    this.help = options.help;
    this.#label = options.label;
    this.#bounds = bounds;
    this.#series = Object.fromEntries(options.values.map((value) => [value, new Float64Array(bounds.length + 2)])) as Record<V, Float64Array>;
    for (const registry of options.registers) registry.registerMetric(this as never);
  }

  observe(value: V, amount: number): void {
    const series = this.#series[value];
    const bounds = this.#bounds;
    let bucket = 0;
    while (bucket < bounds.length && amount > (bounds[bucket] as number)) bucket += 1;
    series[bucket] = (series[bucket] as number) + 1;
    series[bounds.length + 1] = (series[bounds.length + 1] as number) + amount;
  }

  reset(): void {
    for (const series of Object.values<Float64Array>(this.#series)) series.fill(0);
  }

  /** What prom-client's registry reads at scrape time. */
  get(): Promise<{ name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: Sample[] }> {
    const values: Sample[] = [];
    const bounds = this.#bounds;
    for (const [value, series] of Object.entries<Float64Array>(this.#series)) {
      let cumulative = 0;
      for (let bucket = 0; bucket <= bounds.length; bucket += 1) {
        cumulative += series[bucket] as number;
        const le = bucket < bounds.length ? (bounds[bucket] as number) : '+Inf';
        values.push({ metricName: `${this.name}_bucket`, labels: { le, [this.#label]: value }, value: cumulative });
      }
      values.push({ metricName: `${this.name}_sum`, labels: { [this.#label]: value }, value: series[bounds.length + 1] as number });
      values.push({ metricName: `${this.name}_count`, labels: { [this.#label]: value }, value: cumulative });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }
}
