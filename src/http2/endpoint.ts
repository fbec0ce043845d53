import { isIP } from 'node:net';

/** Where a pool connects, read once from its origin. */
export interface Endpoint {
  origin: URL;
  /** Host name or address, IPv6 without its brackets. */
  host: string;
  port: number;
  /** The TLS server name; undefined for an IP address, which gets no SNI (RFC 6066) and has its certificate checked against the address. */
  servername: string | undefined;
  /** `:authority` of every request: host and port as the origin has them. */
  authority: string;
}

/** The endpoint of an origin, which must be `https://host[:port]` and nothing more. */
export function parseEndpoint(origin: string): Endpoint {
  const url = new URL(origin);
  if (url.protocol !== 'https:' || (url.pathname !== '/' && url.pathname !== '') || url.search !== '') {
    throw new RangeError(`an HTTP/2 origin must be https://host[:port], got ${origin}`);
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const parsed = new URL(url.origin);
  return { origin: parsed, host, port: url.port === '' ? 443 : Number(url.port), servername: isIP(host) === 0 ? host : undefined, authority: parsed.host };
}
