import type { BroadcastResult } from './follow-broadcast.ts';

/**
 * The ways a broadcast's figures cannot be trusted: the fakes did not accept
 * exactly one request per device, or the push record's counters disagree
 * with what the fakes counted. Empty when all is well.
 */
export function deliveryProblems(broadcast: BroadcastResult): string[] {
  const { expected, deliveries, gatewayDeliveries, exactlyOnce, record } = broadcast;
  const problems: string[] = [];
  if (deliveries !== expected) problems.push(`the fakes accepted ${deliveries} requests for ${expected} devices`);
  if (exactlyOnce.distinctTokens !== expected) problems.push(`the fakes saw ${exactlyOnce.distinctTokens} distinct tokens of ${expected}`);
  if (exactlyOnce.duplicates !== 0) problems.push(`the fakes counted ${exactlyOnce.duplicates} duplicate deliveries`);
  if (exactlyOnce.refused !== 0) problems.push(`the fakes refused ${exactlyOnce.refused} requests`);
  if (record === null) {
    problems.push('the push record could not be read');
    return problems;
  }
  const expectedRecord: Record<string, unknown> = {
    status: 'done',
    devices: expected,
    successes: deliveries,
    errors: 0,
    iosSuccesses: gatewayDeliveries.apns,
    androidSuccesses: gatewayDeliveries.fcm ?? 0,
  };
  for (const [counter, value] of Object.entries(expectedRecord)) {
    if (record[counter] !== value) problems.push(`the push record's ${counter} is ${JSON.stringify(record[counter])}, the fakes' count says ${JSON.stringify(value)}`);
  }
  return problems;
}
