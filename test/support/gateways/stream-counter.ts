import type { Http2Stream } from 'node:http2';

/** Streams open at a fake gateway now, in all. */
export interface StreamCounts {
  streams: number;
  /** Most open at once over all sessions since the start or `resetPeaks`. */
  peakStreams: number;
  /** Most open at once on one session since the start or `resetPeaks`. */
  peakStreamsPerSession: number;
}

/** A session as the counter sees it: its own count of open streams, kept by `track`. */
export interface CountedSession {
  streams: number;
}

/**
 * Counts the streams open at a fake gateway, in all and per session, and the
 * most seen open at once: what tells a test or a benchmark whether a client
 * kept to the server's stream limit and how many requests it had in flight.
 */
export class StreamCounter implements StreamCounts {
  streams = 0;
  peakStreams = 0;
  peakStreamsPerSession = 0;

  /** Counts `stream`, opened on `session`, until it closes. */
  track(session: CountedSession, stream: Http2Stream): void {
    session.streams++;
    this.streams++;
    if (session.streams > this.peakStreamsPerSession) this.peakStreamsPerSession = session.streams;
    if (this.streams > this.peakStreams) this.peakStreams = this.streams;
    stream.once('close', () => {
      session.streams--;
      this.streams--;
    });
  }

  /** Starts the peaks over from the streams open now on `sessions`. */
  resetPeaks(sessions: Iterable<CountedSession>): void {
    this.peakStreams = this.streams;
    this.peakStreamsPerSession = 0;
    for (const session of sessions) this.peakStreamsPerSession = Math.max(this.peakStreamsPerSession, session.streams);
  }

  counts(): StreamCounts {
    return { streams: this.streams, peakStreams: this.peakStreams, peakStreamsPerSession: this.peakStreamsPerSession };
  }
}
