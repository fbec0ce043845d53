import type { GatewayTransport, GatewayTransportKind, GatewayTransportOptions } from './gateway-transport.ts';
import { HeraldTransport } from './herald-transport.ts';
import { Http2Pool } from './http2-wrapper/http2-pool.ts';

/** The transport of the kind the config names (`push.gateways.transport`). */
export function createGatewayTransport(kind: GatewayTransportKind, options: GatewayTransportOptions): GatewayTransport {
  return kind === 'herald' ? new HeraldTransport(options) : new Http2Pool(options);
}
