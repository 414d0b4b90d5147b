// Unit tests of the pieces without sockets: configuration, token, status map, wire parsing,
// JSON-lines splitting, command line.
import { describe, expect, it } from 'vitest';
import { LIMITS, loadConfig } from '../src/config.js';
import { TokenCheck, resolveToken } from '../src/auth.js';
import { REASONS, statusForCode } from '../src/status.js';
import { HeadReader, contentLength, formatResponse, parseHeaderLines } from '../src/http-wire.js';
import { LineSplitter, parseLine } from '../src/jsonl.js';
import { parseArgs } from '../src/cli.js';
import { decodeComponent, parseQuery, parseTarget } from '../src/routes.js';

describe('config', () => {
  it('has the spec limits and a 15 s idle default', () => {
    expect(LIMITS).toMatchObject({ maxLineBytes: 8192, maxHeaderBlockBytes: 65536, maxBodyBytes: 16777216, maxConnections: 8, idleMs: 15000 });
    expect(loadConfig({}).idleMs).toBe(15000);
    expect(loadConfig({ LINEWORK_IDLE_MS: '250' }).idleMs).toBe(250);
    for (const bad of ['', '0', '-5', 'abc', '1.5']) expect(loadConfig({ LINEWORK_IDLE_MS: bad }).idleMs).toBe(15000);
  });
});

describe('token', () => {
  it('takes SERVICE_API_TOKEN trimmed, else generates 64 lowercase hex', () => {
    expect(resolveToken({ SERVICE_API_TOKEN: '  s3cret \n' })).toEqual({ value: 's3cret', source: 'env' });
    for (const blank of [undefined, '', '   ']) {
      const t = resolveToken({ SERVICE_API_TOKEN: blank });
      expect(t.source).toBe('generated');
      expect(t.value).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(resolveToken({}).value).not.toBe(resolveToken({}).value);
  });

  it('compares the full token; the header must start with exactly "Bearer "', () => {
    const check = new TokenCheck({ value: 'abc123', source: 'env' });
    expect(check.matches('abc123')).toBe(true);
    for (const v of ['abc12', 'abc1234', 'ABC123', '', undefined, 42]) expect(check.matches(v)).toBe(false);
    expect(check.matchesBearer('Bearer abc123')).toBe(true);
    for (const h of ['bearer abc123', 'Bearer  abc123', 'Bearerabc123', 'Token abc123', undefined]) expect(check.matchesBearer(h)).toBe(false);
    expect(check.httpMessage(undefined)).toMatch(/Authorization/);
    expect(check.httpMessage(undefined)).toMatch(/SERVICE_API_TOKEN/);
    expect(new TokenCheck({ value: 'x', source: 'generated' }).httpMessage('Bearer y')).toMatch(/generated at startup/);
  });
});

describe('status', () => {
  it('maps codes to statuses and knows the reason phrases', () => {
    expect(statusForCode('entity_absent')).toBe(404);
    expect(statusForCode('unknown_route')).toBe(404);
    for (const c of ['stale_state', 'session_changed', 'document_not_active', 'gui_required']) expect(statusForCode(c)).toBe(409);
    expect(statusForCode('busy')).toBe(503);
    expect(statusForCode('unauthorized')).toBe(401);
    expect(statusForCode('method_not_allowed')).toBe(405);
    expect(statusForCode('header_too_large')).toBe(431);
    for (const c of ['invalid_point', 'block_referenced', 'unknown_operation', 'document_required', 'document_closed', 'whatever', undefined]) expect(statusForCode(c)).toBe(400);
    expect(REASONS).toMatchObject({ 200: 'OK', 201: 'Created', 204: 'No Content', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 409: 'Conflict', 431: 'Request Header Fields Too Large', 503: 'Service Unavailable' });
  });
});

describe('wire', () => {
  it('reads a head split across chunks and returns the rest', () => {
    const r = new HeadReader();
    expect(r.push(Buffer.from('\r\nGET /a HT'))).toEqual({ kind: 'more' });
    expect(r.push(Buffer.from('TP/1.1\r\nA: 1\r'))).toEqual({ kind: 'more' });
    const done = r.push(Buffer.from('\n\r\nBODY'));
    expect(done).toMatchObject({ kind: 'done', requestLine: 'GET /a HTTP/1.1', headerLines: ['A: 1'] });
    if (done.kind === 'done') expect(done.rest.toString()).toBe('BODY');
  });

  it('measures lines without their line break, the block with it', () => {
    const ok = new HeadReader().push(Buffer.from(`GET /${'a'.repeat(8192 - 14)} HTTP/1.1\r\n\r\n`));
    expect(ok.kind).toBe('done');
    const big = new HeadReader().push(Buffer.from(`GET /${'a'.repeat(8192 - 13)} HTTP/1.1\r\n\r\n`));
    expect(big.kind === 'too_large' ? big.what : big.kind).toBe('request line');
    const block = (n: number) => {
      const r = new HeadReader();
      r.push(Buffer.from('GET / HTTP/1.1\r\n'));
      const line = `X: ${'v'.repeat(8000 - 5)}\r\n`; // 8000 bytes with CRLF
      let res;
      for (let i = 0; i < Math.floor(n / 8000); i++) res = r.push(Buffer.from(line));
      const rest = n % 8000;
      if (rest) res = r.push(Buffer.from(`Y: ${'w'.repeat(rest - 5)}\r\n`));
      return res?.kind === 'too_large' ? res : r.push(Buffer.from('\r\n'));
    };
    expect(block(65536).kind).toBe('done');
    expect(block(65537)).toEqual({ kind: 'too_large', what: 'header block' });
  });

  it('parses headers and Content-Length leniently', () => {
    expect(parseHeaderLines(['Content-Length: 5', 'X-A: 1', 'x-a: 2', 'Folded: a', ' b', 'bad line'])).toEqual({ 'content-length': '5', 'x-a': '1, 2', folded: 'a b' });
    expect(contentLength('12')).toBe(12);
    expect(contentLength(' 12 ')).toBe(12);
    for (const v of ['abc', '-1', '1e3', '0x10', '', '5, 5', undefined]) expect(contentLength(v)).toBe(0);
    expect(contentLength('99999999999999999999999')).toBeGreaterThan(LIMITS.maxBodyBytes);
  });

  it('formats responses with the exact reason phrase and Connection: close', () => {
    const s = formatResponse({ status: 431, body: { ok: false } }).toString();
    expect(s.startsWith('HTTP/1.1 431 Request Header Fields Too Large\r\n')).toBe(true);
    expect(s).toContain('Connection: close\r\n');
    expect(s).toContain('Content-Length: 12\r\n');
    expect(s.endsWith('\r\n\r\n{"ok":false}')).toBe(true);
    expect(formatResponse({ status: 405, body: { ok: false } }, true).toString().endsWith('\r\n\r\n')).toBe(true);
  });
});

describe('targets', () => {
  it('splits prefix, trailing slash, segments and query', () => {
    expect(parseTarget('/api/v1')).toEqual({ segments: [], query: {} });
    expect(parseTarget('/api/v1/')).toEqual({ segments: [], query: {} });
    expect(parseTarget('/api/v1/entities/A%2FB/?x=1')).toEqual({ segments: ['entities', 'A/B'], query: { x: '1' } });
    expect(parseTarget('/api/v1x').segments).toBeNull();
    expect(parseTarget('/').segments).toBeNull();
    expect(parseTarget('http://127.0.0.1:1/api/v1/ready').segments).toEqual(['ready']);
    expect(decodeComponent('a+b%20c')).toBe('a b c');
    expect(decodeComponent('%E0%A4%A')).toBe('%E0%A4%A');
    expect(parseQuery('a=1&a=2&b&=x&c=%2B')).toEqual({ a: '1', b: '', c: '+' });
  });
});

describe('json lines', () => {
  it('splits lines (LF and CRLF), reports oversize lines once and goes on', () => {
    const lines: string[] = [];
    let over = 0;
    const s = new LineSplitter(10, (l) => lines.push(l.toString()), () => over++);
    s.push(Buffer.from('{"a":1}\r\n{"b"'));
    s.push(Buffer.from(':2}\n0123456789ABC'));
    s.push(Buffer.from('DEF\nok\n0123456789\nlast'));
    s.end();
    expect(lines).toEqual(['{"a":1}', '{"b":2}', 'ok', '0123456789', 'last']);
    expect(over).toBe(1);
  });

  it('parses a line into a request or invalid_request', () => {
    expect(parseLine(Buffer.from('  '))).toEqual({ kind: 'blank' });
    expect(parseLine(Buffer.from('{"op":"x"}'))).toEqual({ kind: 'request', req: { op: 'x' } });
    for (const bad of ['{', '[1]', '"s"', 'null', '3']) {
      const p = parseLine(Buffer.from(bad));
      expect(p.kind).toBe('invalid');
      if (p.kind === 'invalid') expect(p.response).toMatchObject({ ok: false, code: 'invalid_request' });
    }
  });
});

describe('command line', () => {
  it('parses transports, files and subcommands', () => {
    expect(parseArgs(['--http', '8080'])).toEqual({ kind: 'serve', http: 8080, stdio: false, mcp: false, files: [], roots: [] });
    expect(parseArgs(['--http=0', '--tcp', '9', 'a.dxf'])).toEqual({ kind: 'serve', http: 0, tcp: 9, stdio: false, mcp: false, files: ['a.dxf'], roots: [] });
    expect(parseArgs(['--mcp', '--root', 'a', '--root=b'])).toMatchObject({ kind: 'serve', mcp: true, roots: ['a', 'b'] });
    expect(parseArgs(['--http', '0', '--root'])).toEqual({ kind: 'error', message: '--root needs a folder' });
    expect(parseArgs(['--mcp', '--tools', 'documents, query'])).toMatchObject({ kind: 'serve', mcp: true, tools: ['documents', 'query'] });
    expect(parseArgs(['--mcp', '--tools=all'])).toMatchObject({ kind: 'serve', mcp: true, tools: ['all'] });
    expect(parseArgs(['--mcp', '--tools'])).toMatchObject({ kind: 'error', message: expect.stringMatching(/^--tools needs tool groups/) });
    expect(parseArgs(['--http', '0', '--tools', 'query'])).toEqual({ kind: 'error', message: '--tools goes with --mcp (it chooses the MCP tool groups)' });
    expect(parseArgs(['--stdio'])).toMatchObject({ kind: 'serve', stdio: true });
    expect(parseArgs(['--mcp'])).toMatchObject({ kind: 'serve', mcp: true });
    expect(parseArgs(['info', 'x.dxf', '--json'])).toEqual({ kind: 'file', command: 'info', args: ['x.dxf', '--json'] });
    expect(parseArgs(['convert', 'a', 'b', '--version', 'R12'])).toEqual({ kind: 'file', command: 'convert', args: ['a', 'b', '--version', 'R12'] });
    expect(parseArgs(['audit', 'a.dxf', '--fix', 'b.dxf'])).toEqual({ kind: 'file', command: 'audit', args: ['a.dxf', '--fix', 'b.dxf'] });
    expect(parseArgs(['--help'])).toEqual({ kind: 'help' });
    expect(parseArgs(['help', 'plot'])).toEqual({ kind: 'help', command: 'plot' });
    expect(parseArgs(['a.dxf', '--http', '0'])).toMatchObject({ kind: 'serve', http: 0, files: ['a.dxf'] });
    expect(parseArgs(['bogus'])).toEqual({ kind: 'error', message: expect.stringMatching(/^unknown command bogus: the commands are info, convert, plot, audit/) });
    expect(parseArgs(['--version'])).toEqual({ kind: 'version' });
    for (const bad of [[], ['--http'], ['--http', 'x'], ['--http', '70000'], ['--stdio', '--mcp'], ['--bogus'], ['a.dxf'], ['--tcp', '1', 'a.dxf']]) {
      expect(parseArgs(bad).kind, bad.join(' ')).toBe('error');
    }
  });
});
