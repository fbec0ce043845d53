/**
 * The click intent of the hosted service's SDK on HMS and Honor
 * notifications: `intent://<host>/notify_detail#Intent;scheme=lcpushscheme;S.content=<custom keys as URL-encoded JSON>;launchFlags=0x10000000;end`.
 * `S.content` sits inside the `#Intent;…;end` fragment, where Android reads
 * extras (the hosted service's docs also show it in the path, which Android
 * would not turn into an extra).
 */
export function clickIntent(host: string, custom: Readonly<Record<string, unknown>>): string {
  return `intent://${host}/notify_detail#Intent;scheme=lcpushscheme;S.content=${encodeURIComponent(JSON.stringify(custom))};launchFlags=0x10000000;end`;
}
