// Runs protocol-1 requests through each real transport process (test helper).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { buildCatalogue } from '@linework/engine';
import { buildGroupTools } from '../src/mcp-tools.js';
import { BIN, LineClient, ROOT, request, spawnCli, startHttpProcess } from './helpers.js';

export type Req = { op: string; fields: Record<string, unknown> };
export type Answer = { res: Record<string, any>; http?: number };
/** Extra command-line arguments, environment and working folder of the server process. */
export interface ProcOptions {
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
}

export async function runHttp(reqs: Req[], o: ProcOptions = {}): Promise<Answer[]> {
  const s = await startHttpProcess(o.args ?? [], o.env ?? {}, { cwd: o.cwd });
  try {
    const out: Answer[] = [];
    for (const r of reqs) {
      const res = await request(s.port, 'POST', `/api/v1/${r.op}`, { token: s.token, body: r.fields });
      out.push({ res: res.json, http: res.status });
    }
    return out;
  } finally {
    await s.proc.stop();
  }
}

export async function runStdio(reqs: Req[], o: ProcOptions = {}): Promise<Answer[]> {
  const p = spawnCli(['--stdio', ...(o.args ?? [])], o.env ?? {}, { cwd: o.cwd });
  for (const r of reqs) p.child.stdin!.write(JSON.stringify({ ...r.fields, protocol: 1, op: r.op }) + '\n');
  p.child.stdin!.end();
  const { code } = await p.exited;
  if (code !== 0) throw new Error(`stdio exited with ${code}: ${p.stderr()}`);
  return p.stdout().trim().split('\n').map((l) => ({ res: JSON.parse(l) }));
}

export async function runTcp(reqs: Req[], o: ProcOptions = {}): Promise<Answer[]> {
  const token = 'shared-cases-token';
  const p = spawnCli(['--tcp', '0', ...(o.args ?? [])], { ...(o.env ?? {}), SERVICE_API_TOKEN: token }, { cwd: o.cwd });
  try {
    const port = Number((await p.waitStderr(/^tcp:\/\/127\.0\.0\.1:(\d+)$/m))[1]);
    const c = await LineClient.connect(port);
    const out: Answer[] = [];
    for (const r of reqs) {
      c.send({ ...r.fields, protocol: 1, op: r.op, token });
      out.push({ res: await c.next() });
    }
    c.close();
    return out;
  } finally {
    await p.stop();
  }
}

export async function startMcpClient(o: ProcOptions = {}): Promise<{ client: Client; close: () => Promise<void>; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, '--mcp', ...(o.args ?? [])],
    cwd: o.cwd ?? ROOT,
    env: { ...(process.env as Record<string, string>), LINEWORK_LOG_LEVEL: 'warn', ...(o.env ?? {}) },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const client = new Client({ name: 'linework-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, close: () => client.close(), stderr: () => err };
}

/** MCP runs an op as an action of its group's tool (every group listed); the op's own `action` is `mode`. */
export async function runMcp(reqs: Req[], o: ProcOptions = {}): Promise<Answer[]> {
  const groups = buildGroupTools(buildCatalogue());
  const toolOf = (op: string): string => groups.find((g) => g.actions.has(op))?.tool.name ?? op;
  const m = await startMcpClient({ ...o, args: ['--tools', 'all', ...(o.args ?? [])] });
  try {
    const out: Answer[] = [];
    for (const r of reqs) {
      const { action, ...rest } = r.fields;
      const args = { ...rest, ...(action !== undefined ? { mode: action } : {}), action: r.op };
      const res = (await m.client.callTool({ name: toolOf(r.op), arguments: args })) as any;
      const text = res.content.find((c: any) => c.type === 'text')?.text;
      out.push({ res: JSON.parse(text) });
    }
    return out;
  } finally {
    await m.close();
  }
}
