/**
 * The burst of a push's `flow_control` bucket: a fortieth of the rate (25 ms
 * of it). The bucket starts full, so by the tokens taken the deliveries of any
 * one-second window, the first included, are at most rate + burst = 1.025 ×
 * the rate. Of SPEC-NOTES' 1.1 ×, 0.025 more is left for a sender that spends
 * a grant late (`staleGrantMs`), and the last 0.05, 50 ms, for the way to the
 * gateway: sends of one second that reach it a little later than those of
 * the next (a busy connection, a gateway that reads in bursts) land in one
 * window there. A burst of the whole rate let a 1000/s push send about 2,000
 * in its first second; a twentieth of it, with 50 ms for late grants, left
 * nothing for the way and measured 1,105 in a replicated run.
 */
export function flowControlBurst(ratePerSecond: number): number {
  return Math.max(1, Math.ceil(ratePerSecond / 40));
}

/**
 * How long after asking for them a sender may still spend `flow_control`
 * tokens: 25 ms, the part of SPEC-NOTES' 1.1 × left for it (see
 * `flowControlBurst`). Tokens not spent by then (the sender waited for its
 * gateway's window, or did not run) are given back with its next take and
 * asked for again, rather than sent late beside the next grant's.
 */
export const staleGrantMs = 25;
