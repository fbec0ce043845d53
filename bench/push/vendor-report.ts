import type { VendorBroadcast } from './vendor-broadcast.ts';

/** The run's figures as printed: overall, then one line per gateway. */
export function vendorReport(b: VendorBroadcast): string[] {
  const spanSeconds = Math.max(0.001, (b.lastDeliveryMs - b.firstDeliveryMs) / 1000);
  const fakeCpu = b.fakeCpuSeconds.apns + b.fakeCpuSeconds.fcm + b.fakeCpuSeconds.makers;
  const columns = ['gateway', 'devices', 'delivered', 'deliv/s', 'first ms', 'last ms', 'requests', 'tokens/req', 'largest', 'exactly once'];
  const widths = [8, 9, 10, 9, 9, 9, 9, 11, 8, 13];
  const line = (cells: string[]): string => cells.map((cell, index) => (index === 0 ? cell.padEnd(widths[index] ?? 8) : cell.padStart(widths[index] ?? 8))).join(' ');
  const rows = b.gateways.map((g) =>
    line([
      g.gateway,
      g.devices.toLocaleString('en-US'),
      g.deliveries.toLocaleString('en-US'),
      g.deliveriesPerSecond.toLocaleString('en-US'),
      g.firstDeliveryMs === null ? '-' : String(g.firstDeliveryMs),
      g.lastDeliveryMs === null ? '-' : String(g.lastDeliveryMs),
      g.requests.toLocaleString('en-US'),
      g.tokensPerSend.toFixed(1),
      g.largestRequest === null ? '-' : String(g.largestRequest),
      onceText(g),
    ]),
  );
  return [
    line(columns),
    ...rows,
    `overall: ${b.deliveries.toLocaleString('en-US')} deliveries at ${b.deliveriesPerSecond.toLocaleString('en-US')}/s (first ${b.firstDeliveryMs} ms, last ${b.lastDeliveryMs} ms, record done ${b.recordDoneMs ?? '-'} ms after the request)`,
    `Herald CPU: ${b.heraldCpuSeconds.toFixed(2)} s to the last delivery, ${b.cpuMicrosPerDelivery} µs per delivery; ${b.deliveriesPerCoreSecond?.toLocaleString('en-US') ?? '-'} deliveries per core-second until the record read done; ` +
      `cores busy: Herald ${(b.heraldCpuSeconds / spanSeconds).toFixed(2)}, the fakes ${(fakeCpu / spanSeconds).toFixed(2)} (APNs ${b.fakeCpuSeconds.apns} s, FCM ${b.fakeCpuSeconds.fcm} s, makers ${b.fakeCpuSeconds.makers} s)`,
    `Herald RSS: ${b.rssBeforeMb} MB before the push, ${b.peakRssMb} MB at its peak`,
    'requests: to the send endpoints (one per device for APNs and FCM; a maker batch each, vivo counting its saved message too); tokens/req: deliveries over the requests that named tokens; largest: the most tokens one request named',
  ];
}

function onceText(g: VendorBroadcast['gateways'][number]): string {
  if (g.deliveries === g.devices && g.distinctTokens === g.devices && g.duplicates === 0 && g.refused === 0) return 'yes';
  return `NO (${g.distinctTokens}/${g.devices}, ${g.duplicates} dup, ${g.refused} refused)`;
}

/**
 * The ways the run's figures cannot be trusted: a gateway's fake did not get
 * each of its devices exactly once, Herald counted other outcomes than the
 * fakes, or the push record disagrees. Empty when all is well.
 */
export function vendorProblems(b: VendorBroadcast): string[] {
  const problems: string[] = [];
  for (const g of b.gateways) {
    if (onceText(g) !== 'yes') problems.push(`${g.gateway}: ${onceText(g)}`);
    const counted = b.heraldCounts[g.gateway] ?? {};
    if ((counted.delivered ?? 0) !== g.deliveries) problems.push(`${g.gateway}: Herald counted ${counted.delivered ?? 0} delivered, its fake ${g.deliveries}`);
    const other = Object.entries(counted).filter(([outcome, value]) => outcome !== 'delivered' && value > 0);
    if (other.length > 0) problems.push(`${g.gateway}: Herald counted ${JSON.stringify(Object.fromEntries(other))}`);
  }
  const { record } = b;
  if (record === null) return [...problems, 'the push record could not be read'];
  const ios = b.gateways.find((g) => g.gateway === 'apns')?.deliveries ?? 0;
  const expectedRecord: Record<string, unknown> = { status: 'done', devices: b.expected, successes: b.expected, errors: 0, invalidTokens: 0, iosSuccesses: ios, androidSuccesses: b.expected - ios };
  for (const [counter, value] of Object.entries(expectedRecord)) {
    if (record[counter] !== value) problems.push(`the push record's ${counter} is ${JSON.stringify(record[counter])}, not ${JSON.stringify(value)}`);
  }
  return problems;
}
