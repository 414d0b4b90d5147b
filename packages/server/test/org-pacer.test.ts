// The pacer: a worker running a long request is stopped while other organizations are served,
// runs in its share of each period, and runs freely once they are quiet.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BackgroundPacer } from '../src/org-pacer.js';
import type { OrgWorker } from '../src/org-link.js';
import { OrgWorkers } from '../src/org-workers.js';
import { silentLogger } from '../src/logger.js';
import { sleep } from './helpers.js';

function fakeClock(start = 1000) {
  let t = start;
  return { now: () => t, set: (v: number) => (t = v) };
}

function recorder() {
  const calls: boolean[] = [];
  let gone = false;
  return { calls, worker: { pause: (s: boolean) => (gone ? false : (calls.push(s), true)) }, end: () => (gone = true) };
}

describe('BackgroundPacer', () => {
  it('stops a backgrounded worker while another organization has a request in flight, outside its share', () => {
    const clock = fakeClock(1050); // 50 ms into a period: outside the 20 ms share
    const pacer = new BackgroundPacer({ now: clock.now, tickMs: 1_000_000 });
    const a = recorder();
    pacer.background('A', a.worker);
    // nobody else busy: runs
    expect(a.calls).toEqual([]);
    pacer.started('B');
    expect(a.calls).toEqual([true]);
    expect(pacer.isStopped('A')).toBe(true);
    // A's own requests do not count against it
    pacer.started('A');
    pacer.ended('A');
    expect(a.calls).toEqual([true]);
    // B ends; within the quiet time A stays stopped, after it A runs on
    pacer.ended('B');
    clock.set(1060);
    (pacer as unknown as { tick(): void }).tick();
    expect(a.calls).toEqual([true]);
    clock.set(1080);
    (pacer as unknown as { tick(): void }).tick();
    expect(a.calls).toEqual([true, false]);
    pacer.resumeAll();
  });

  it('lets the worker run in its share of each period even while others stay busy', () => {
    const clock = fakeClock(1050);
    const pacer = new BackgroundPacer({ now: clock.now, tickMs: 1_000_000 });
    const a = recorder();
    pacer.background('A', a.worker);
    pacer.started('B');
    const tick = () => (pacer as unknown as { tick(): void }).tick();
    expect(a.calls).toEqual([true]);
    clock.set(1105); // 5 ms into the next period: its share
    tick();
    expect(a.calls).toEqual([true, false]);
    clock.set(1125); // past the share, B still busy
    tick();
    expect(a.calls).toEqual([true, false, true]);
    // the long request ends: resumed at once, and no longer paced
    pacer.foreground('A');
    expect(a.calls).toEqual([true, false, true, false]);
    clock.set(1150);
    tick();
    expect(a.calls.length).toBe(4);
  });

  it('two long requests do not stop each other; a worker that is gone is dropped', () => {
    const clock = fakeClock(1050);
    const pacer = new BackgroundPacer({ now: clock.now, tickMs: 1_000_000 });
    const a = recorder();
    const c = recorder();
    pacer.started('A');
    pacer.started('C');
    // both became long: no longer busy
    pacer.ended('A');
    pacer.ended('C');
    clock.set(1100 + 50);
    pacer.background('A', a.worker);
    pacer.background('C', c.worker);
    expect(a.calls).toEqual([]);
    expect(c.calls).toEqual([]);
    a.end();
    pacer.started('B');
    expect(c.calls).toEqual([true]);
    expect(pacer.isStopped('A')).toBe(false);
    pacer.resumeAll();
    expect(c.calls).toEqual([true, false]);
  });
});

describe('OrgWorkers: a long request is paced against the other organizations', () => {
  it('stops the long request\'s worker while another organization is served and resumes it when that ends', async () => {
    const pauses: boolean[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const body = Buffer.from('{}');
    const worker = (orgId: string): OrgWorker => ({
      orgId, where: 'test',
      http: async (req) => {
        if (req.target.includes('plot')) await held;
        if (req.target.includes('slow')) await sleep(60);
        return { status: 200, encoded: { chunks: [body], bytes: body.length } };
      },
      line: async () => [], stop: async () => undefined, exited: new Promise(() => undefined),
      yieldCpu: () => undefined,
      pause: orgId === 'A' ? (s) => (pauses.push(s), true) : undefined,
    });
    // a share of 0: the worker runs only when the others are quiet
    const pacer = new BackgroundPacer({ shareMs: 0, quietMs: 10, tickMs: 2 });
    const orgs = new OrgWorkers({ root: '/nowhere', appVersion: 't', log: silentLogger(), idleMs: 60_000, longMs: 50, pacer, startWorker: async (id) => worker(id) });
    try {
      const plot = orgs.http('A', { method: 'POST', target: '/api/v1/plot', body: new Uint8Array() });
      await sleep(120);
      expect(pauses).toEqual([]);
      const slow = orgs.http('B', { method: 'GET', target: '/api/v1/slow', body: new Uint8Array() });
      await sleep(20);
      expect(pacer.isStopped('A')).toBe(true);
      await slow;
      await sleep(60);
      expect(pacer.isStopped('A')).toBe(false);
      expect(pauses).toEqual([true, false]);
      release();
      await plot;
    } finally {
      await orgs.close();
    }
  });
});

describe.runIf(process.platform === 'linux')('a real worker process', () => {
  it('is stopped (state T) and continued by the pacer', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const state = () => readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]![0];
    const clock = fakeClock(1050);
    const pacer = new BackgroundPacer({ now: clock.now, tickMs: 1_000_000 });
    try {
      pacer.background('A', { pause: (s) => child.kill(s ? 'SIGSTOP' : 'SIGCONT') });
      pacer.started('B');
      await sleep(50);
      expect(state()).toBe('T');
      pacer.resumeAll();
      await sleep(50);
      expect(state()).toMatch(/[SR]/);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('BackgroundPacer memory', () => {
  it('keeps no trace of organizations that were active long ago, with no worker paced', () => {
    const clock = fakeClock(1000);
    const pacer = new BackgroundPacer({ now: clock.now, tickMs: 1_000_000 });
    for (let i = 0; i < 5000; i++) {
      clock.set(1000 + i);
      pacer.started(`org${i}`);
      pacer.ended(`org${i}`);
    }
    const kept = (pacer as unknown as { lastActive: Map<string, number> }).lastActive.size;
    expect(kept).toBeLessThanOrEqual(257 + 200);
  });
});
