// Who may hold the HTTP server's connections. Alone (one session), the spec's rule: 8 at a time, a
// ninth dropped without a response until one finishes. In hosted mode the front serves many
// organizations, and one organization holding its connections (slow bodies, long plots) must not
// lock the others out, so the connections are counted per bucket: each organization, the session
// token, and everything not (yet) known to be an organization's ("anonymous": no credential, a
// key never verified before). A bucket holds at most `perBucket` connections (the spec's 8: each
// organization sees the spec's server); the front as a whole at most `total`.
//
// A connection is put in its bucket when its head has arrived (the Authorization header names the
// key, and a key verified before names its organization). Before that it counts in the total
// only; when the total is full, a new connection takes the place of the oldest one still sending
// its head (silent or trickling clients cannot fill the front; a real client's head arrives in
// milliseconds), and is dropped when every connection has sent its head. In the anonymous bucket
// (strangers to each other) a new request likewise takes the place of the oldest one still
// sending its body; in an organization's bucket the ninth is dropped, as the spec's.
import type { Socket } from 'node:net';

/** The bucket of requests without a credential, or with a key not yet verified. */
export const ANONYMOUS_BUCKET = 'anonymous';

export interface GateOptions {
  /** Connections in all (beyond it: see `evictHeads`). */
  total: number;
  /** Connections per bucket, from the head until the answer is written. */
  perBucket: number;
  /** True: a connection arriving at a full gate closes the oldest one still sending its head. */
  evictHeads: boolean;
  /**
   * A bucket of strangers (no credential, keys not yet verified): when it is full, a new request
   * takes the place of its oldest connection still sending its body, so no one holds it with
   * trickling bodies against everyone else.
   */
  openBucket?: string;
}

export interface GateTicket {
  readonly socket: Socket;
  /** The connection's bucket once its head has arrived. */
  bucket: string | null;
  /** Set when the connection has sent its head (from then on it is never evicted). */
  headDone: boolean;
  /** Set when the whole request has arrived (from then on it is never evicted). */
  requestDone: boolean;
}

export class ConnectionGate {
  /** Connections in arrival order (a Set iterates in insertion order: the oldest first). */
  private readonly open = new Set<GateTicket>();
  private readonly buckets = new Map<string, number>();

  constructor(readonly options: GateOptions) {}

  get size(): number {
    return this.open.size;
  }

  /** How many connections a bucket holds (tests, logs). */
  held(bucket: string): number {
    return this.buckets.get(bucket) ?? 0;
  }

  /** A new connection: its ticket, or null when it must be dropped. */
  accept(socket: Socket): GateTicket | null {
    if (this.open.size >= this.options.total) {
      const oldest = this.options.evictHeads ? this.oldestInHead() : undefined;
      if (!oldest) return null;
      this.release(oldest);
      oldest.socket.destroy();
    }
    const t: GateTicket = { socket, bucket: null, headDone: false, requestDone: false };
    this.open.add(t);
    return t;
  }

  /** The head has arrived: the connection joins `bucket`, or false when that bucket is full (drop it). */
  admit(t: GateTicket, bucket: string): boolean {
    t.headDone = true;
    if (!this.open.has(t)) return true;
    if ((this.buckets.get(bucket) ?? 0) >= this.options.perBucket) {
      const trickling = bucket === this.options.openBucket ? this.oldestReading(bucket) : undefined;
      if (!trickling) return false;
      this.release(trickling);
      trickling.socket.destroy();
    }
    this.buckets.set(bucket, (this.buckets.get(bucket) ?? 0) + 1);
    t.bucket = bucket;
    return true;
  }

  /** The connection's answer is written (or it closed): it stops counting. Safe to call twice. */
  release(t: GateTicket): void {
    if (!this.open.delete(t)) return;
    if (t.bucket !== null) {
      const n = (this.buckets.get(t.bucket) ?? 1) - 1;
      if (n > 0) this.buckets.set(t.bucket, n);
      else this.buckets.delete(t.bucket);
    }
  }

  /** The whole request has arrived: the connection is no longer evicted as a trickler. */
  requestRead(t: GateTicket): void {
    t.requestDone = true;
  }

  private oldestReading(bucket: string): GateTicket | undefined {
    for (const t of this.open) if (t.bucket === bucket && !t.requestDone) return t;
    return undefined;
  }

  private oldestInHead(): GateTicket | undefined {
    for (const t of this.open) if (!t.headDone) return t;
    return undefined;
  }
}
