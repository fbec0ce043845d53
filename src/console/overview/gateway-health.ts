import type { Metrics } from '../../core/metrics.ts';

/** One gateway's figures in this process since it started. */
export interface GatewayFigures {
  gateway: string;
  delivered: number;
  invalidToken: number;
  failed: number;
  notSent: number;
  /** Open HTTP/2 sessions to it now. */
  sessions: number;
  /** Its most frequent reasons for not delivering. */
  reasons: { reason: string; count: number }[];
}

export interface GatewayHealth {
  gateways: GatewayFigures[];
  /** Each backend the process uses and whether it answers (`herald_dependency_up`). */
  dependencies: { dependency: string; up: boolean; required: boolean }[];
}

interface MetricValue {
  value: number;
  labels: Record<string, string | number | undefined>;
}

/**
 * Gateway health from the metrics this process already keeps:
 * `herald_push_deliveries_total`, `herald_push_failures_total`,
 * `herald_gateway_sessions` and `herald_dependency_up`. They count what this
 * process's senders did; on a node without the sender role they stay at
 * zero, and the deployment's whole picture is Prometheus's (the chart's
 * dashboard).
 */
export async function readGatewayHealth(metrics: Metrics): Promise<GatewayHealth> {
  const read = async (name: string): Promise<MetricValue[]> => {
    const metric = metrics.registry.getSingleMetric(name);
    if (metric === undefined) return [];
    const { values }: { values: MetricValue[] } = await metric.get();
    return values;
  };
  const byGateway = new Map<string, GatewayFigures>();
  const figures = (gateway: string): GatewayFigures => {
    let found = byGateway.get(gateway);
    if (found === undefined) byGateway.set(gateway, (found = { gateway, delivered: 0, invalidToken: 0, failed: 0, notSent: 0, sessions: 0, reasons: [] }));
    return found;
  };
  const outcomeField = { delivered: 'delivered', 'invalid-token': 'invalidToken', failed: 'failed', 'not-sent': 'notSent' } as const;
  for (const { value, labels } of await read('herald_push_deliveries_total')) {
    const field = outcomeField[String(labels.outcome) as keyof typeof outcomeField];
    if (field !== undefined) figures(String(labels.gateway))[field] += value;
  }
  for (const { value, labels } of await read('herald_push_failures_total')) {
    if (value > 0) figures(String(labels.gateway)).reasons.push({ reason: String(labels.reason), count: value });
  }
  for (const { value, labels } of await read('herald_gateway_sessions')) figures(String(labels.gateway)).sessions += value;
  for (const figure of byGateway.values()) figure.reasons.sort((a, b) => b.count - a.count).splice(5);
  const dependencies = (await read('herald_dependency_up')).map(({ value, labels }) => ({ dependency: String(labels.dependency), up: value === 1, required: labels.required === 'true' }));
  return { gateways: [...byGateway.values()], dependencies };
}
