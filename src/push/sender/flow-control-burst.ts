/**
 * The burst of a push's `flow_control` bucket: a twentieth of the rate. The
 * bucket starts full, so the deliveries of any one-second window, the first
 * included, are at most rate + burst = 1.05 × the rate by the tokens taken;
 * the other 0.05 of the 1.1 × allowed (SPEC-NOTES: the burst at most a tenth)
 * is left for the time between a grant and its send reaching the gateway,
 * which may bunch sends a sender held up (its connection window, a pause) for
 * up to 50 ms. A full burst of the rate let a 1000/s push send about 2,000
 * in its first second.
 */
export function flowControlBurst(ratePerSecond: number): number {
  return Math.max(1, Math.ceil(ratePerSecond / 20));
}

/**
 * How long after asking for them a sender may still spend `flow_control`
 * tokens: the 50 ms the burst leaves of SPEC-NOTES' 1.1 × (see
 * `flowControlBurst`). Tokens not spent by then (the sender waited for its
 * gateway's window, or did not run) are given back with its next take and
 * asked for again, rather than sent late beside the next grant's.
 */
export const staleGrantMs = 50;
