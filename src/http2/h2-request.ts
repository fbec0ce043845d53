import type { GatewayRequest } from '../push/gateways/gateway-transport.ts';
import type { TransportFailure } from '../push/gateways/transport-failure.ts';
import type { HeaderList } from './hpack-decoder.ts';

/** What a stream reports to whoever sent it, exactly once: an answer, or why there is none. */
export interface H2StreamOwner {
  readonly request: GatewayRequest;
  /** The whole answer arrived. `body` is kept only for answers other than 200, and at most 64 KiB of it. */
  answered(status: number, headers: HeaderList, body: Buffer | undefined): void;
  failed(failure: TransportFailure): void;
}
