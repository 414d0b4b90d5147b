// The load of the HTTP benchmarks: GET requests, each on a fresh connection (the spec's one request
// per connection), from a number of concurrent workers, with latencies and non-200 answers counted.
import { connect } from 'node:net';

/** One request on a fresh connection; resolves with the status code when the server closes. */
export function oneRequest(port: number, payload: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1');
    sock.setNoDelay(true);
    let first: Buffer | null = null;
    sock.on('connect', () => sock.write(payload));
    sock.on('data', (b: Buffer) => {
      first ??= b;
    });
    sock.on('error', () => undefined);
    sock.on('close', () => {
      const m = first ? /^HTTP\/1\.1 (\d{3})/.exec(first.toString('latin1', 0, 16)) : null;
      resolve(m ? Number(m[1]) : 0);
    });
  });
}

export interface LoadResult {
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
}

export class Sample {
  latencies: number[] = [];
  errors = 0;
  seconds = 0;

  result(): LoadResult {
    const l = [...this.latencies].sort((a, b) => a - b);
    const pct = (p: number): number => l[Math.min(l.length - 1, Math.floor((l.length * p) / 100))] ?? 0;
    return { requests: l.length, errors: this.errors, rps: l.length / this.seconds, p50: pct(50), p99: pct(99) };
  }
}

/** Runs `connections` workers for `seconds`, each sending one request per fresh connection. */
export async function load(port: number, path: string, seconds: number, opts: { token: string; connections: number }, into = new Sample()): Promise<Sample> {
  const payload = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${opts.token}\r\nConnection: close\r\n\r\n`);
  const end = performance.now() + seconds * 1000;
  const worker = async (): Promise<void> => {
    while (performance.now() < end) {
      const t0 = performance.now();
      const status = await oneRequest(port, payload);
      into.latencies.push(performance.now() - t0);
      if (status !== 200) into.errors++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: opts.connections }, worker));
  into.seconds += (performance.now() - t0) / 1000;
  return into;
}

