// `linework --stdio` as a real child process.
import { describe, expect, it } from 'vitest';
import { spawnCli, sleep } from './helpers.js';

describe('--stdio', () => {
  it('answers one line per request, in order; malformed lines answer invalid_request and the stream goes on; EOF exits 0', async () => {
    const p = spawnCli(['--stdio'], { LINEWORK_LOG_LEVEL: 'info' });
    const lines = [
      JSON.stringify({ protocol: 1, op: 'entities_create', request_id: 'a', entities: [{ type: 'Point', location: [1, 2] }] }),
      '{not json',
      '',
      '[1,2]',
      JSON.stringify({ protocol: 1, op: 'entities_list', request_id: 'b' }),
      JSON.stringify({ protocol: 2, op: 'ready' }),
      JSON.stringify({ protocol: 1, op: 'nope' }),
      JSON.stringify({ protocol: 1, op: 'ready', request_id: 'last' }),
    ];
    // written in pieces that split lines, CRLF on one
    const all = lines.join('\n').replace('{not json', '{not json\r') + '\n';
    p.child.stdin!.write(all.slice(0, 30));
    await sleep(50);
    p.child.stdin!.write(all.slice(30));
    p.child.stdin!.end();
    const { code } = await p.exited;
    expect(code).toBe(0);
    const out = p.stdout().split('\n');
    expect(out.pop()).toBe('');
    const res = out.map((l) => JSON.parse(l));
    expect(res).toHaveLength(7);
    expect(res[0]).toMatchObject({ ok: true, request_id: 'a', result: { count: 1 } });
    expect(res[0]).toHaveProperty('state');
    expect(res[1]).toMatchObject({ ok: false, code: 'invalid_request' });
    expect(res[2]).toMatchObject({ ok: false, code: 'invalid_request' });
    expect(res[3]).toMatchObject({ ok: true, request_id: 'b', result: { count: 1 } });
    expect(res[4]).toMatchObject({ ok: false, code: 'unsupported_protocol' });
    expect(res[5]).toMatchObject({ ok: false, code: 'unknown_op' });
    expect(res[6]).toMatchObject({ ok: true, request_id: 'last', result: { ready: true } });
    // logs only on stderr
    expect(p.stderr()).toMatch(/"msg":"linework ready"/);
    expect(p.stdout()).not.toMatch(/"level"/);
  });

  it('keeps order over many pipelined requests', async () => {
    const p = spawnCli(['--stdio']);
    const n = 2000;
    let buf = '';
    for (let i = 0; i < n; i++) buf += JSON.stringify({ protocol: 1, op: i % 2 ? 'ready' : 'entities_create', request_id: `r${i}`, entities: [{ type: 'Point', location: [i, i] }] }) + '\n';
    p.child.stdin!.end(buf);
    const { code } = await p.exited;
    expect(code).toBe(0);
    const ids = p.stdout().trim().split('\n').map((l) => JSON.parse(l).request_id);
    expect(ids).toEqual(Array.from({ length: n }, (_, i) => `r${i}`));
  });

  it('ends cleanly on immediate EOF', async () => {
    const p = spawnCli(['--stdio']);
    p.child.stdin!.end();
    const { code } = await p.exited;
    expect(code).toBe(0);
    expect(p.stdout()).toBe('');
  });
});
