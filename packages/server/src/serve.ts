// `linework --http/--tcp/--stdio/--mcp`: one engine session behind the transports asked for.
import { statSync } from 'node:fs';
import { delimiter, dirname, resolve } from 'node:path';
import { removeStaleTempFiles } from '@linework/dxf';
import type { DispatcherApi } from '@linework/engine';
import { Workspace, budgetsFromEnv, configureBudgets, createEngine, warmUp } from '@linework/engine';
import { PromptRelay, startEditorHost } from '@linework/editor';
import { TokenCheck, resolveToken } from './auth.js';
import type { Command, Io } from './cli.js';
import { loadConfig } from './config.js';
import { requestLogger, startHttpServer } from './http-server.js';
import { HttpApi } from './http-api.js';
import { replyForNodeHttp } from './http-wire.js';
import { HostedAccess } from './hosted.js';
import { KeyVerifier, parseKeysUrl } from './key-verifier.js';
import { createLogger, type Logger } from './logger.js';
import { ORG_IDLE_MS } from './org-sessions.js';
import { InProcessOrgs, OrgWorkers } from './org-workers.js';
import { serveMcp, toolGroups } from './mcp.js';
import { Router } from './routes.js';
import { serveStdio } from './stdio.js';
import { startTcpServer } from './tcp.js';
import { appVersion } from './version.js';

/** Opens drawing files in the session through the same route as POST /documents {path}. */
async function openFiles(api: DispatcherApi, files: string[], log: Logger): Promise<void> {
  const router = new Router(api.catalogue);
  const open = router.match('POST', ['documents']);
  for (const file of files) {
    const body = { path: resolve(file) };
    const fields = open?.route.fromHttp ? open.route.fromHttp({ params: {}, query: {}, body }) : body;
    const res = await api.dispatch({ ...fields, protocol: 1, op: open?.op.name ?? 'open' });
    if (!res.ok) log.error({ file, code: res.code }, `cannot open ${file}: ${res.error ?? res.code}`);
    else log.info({ file, document_id: res.document_id }, 'opened drawing');
  }
}

/**
 * The workspace: --root folders, else LINEWORK_ROOT, else the current folder; in graphical mode
 * the folders of the files named on the command line too (the user chose them).
 */
export function workspaceFor(cmd: Extract<Command, { kind: 'serve' }>, env: NodeJS.ProcessEnv): Workspace | string {
  const named = cmd.roots.length ? cmd.roots : (env.LINEWORK_ROOT ?? '').split(delimiter).filter((d) => d.trim() !== '');
  const roots = named.length ? named : [process.cwd()];
  for (const r of roots) {
    let dir = false;
    try {
      dir = statSync(r).isDirectory();
    } catch {
      // reported below
    }
    if (!dir) return `the workspace root ${r} is not a folder`;
  }
  const ws = new Workspace(roots);
  for (const f of cmd.files) ws.addRoot(dirname(resolve(f)));
  return ws;
}

/**
 * API keys beside the session token (--keys-url, else LINEWORK_KEYS_URL), for HTTP and TCP:
 * verified by the key service, each organization in its own session under the workspace's first
 * root. stdio and MCP serve the local session only (whoever owns the pipes is trusted).
 */
export function hostedAccessFor(cmd: Extract<Command, { kind: 'serve' }>, env: NodeJS.ProcessEnv, workspace: Workspace, log: Logger): HostedAccess | string | null {
  const url = cmd.keysUrl ?? (env.LINEWORK_KEYS_URL?.trim() || undefined);
  if (url === undefined || (cmd.http === undefined && cmd.tcp === undefined)) return null;
  const parsed = parseKeysUrl(url);
  if (typeof parsed === 'string') return parsed;
  const config = loadConfig(env);
  const common = { root: workspace.primary, appVersion: appVersion(), log, idleMs: config.orgIdleMs ?? ORG_IDLE_MS };
  // Each organization in a worker process of its own; in this process only when asked (no isolation).
  const orgs = config.orgWorkers
    ? new OrgWorkers({ ...common, ...(config.orgHeapMb ? { heapMb: config.orgHeapMb } : {}), ...(config.orgCheckpointMs ? { checkpointMs: config.orgCheckpointMs } : {}), ...(config.orgNice !== undefined ? { nice: config.orgNice } : {}), ...(config.orgLongMs ? { longMs: config.orgLongMs } : {}) })
    : new InProcessOrgs(common);
  return new HostedAccess(new KeyVerifier({ url, ...(config.keysTimeoutMs ? { timeoutMs: config.keysTimeoutMs } : {}) }), orgs, log);
}

export async function serve(cmd: Extract<Command, { kind: 'serve' }>, env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  const log = createLogger(env);
  const config = loadConfig(env);
  const graphical = cmd.files.length > 0 || cmd.gui === true;
  const workspace = workspaceFor(cmd, env);
  if (typeof workspace === 'string') {
    io.stderr.write(`linework: ${workspace}\n`);
    return 2;
  }
  // The work budgets (docs/server.md, "Work budgets"): a value that is not one stops the start.
  try {
    configureBudgets(budgetsFromEnv(env));
  } catch (err) {
    io.stderr.write(`linework: ${(err as Error).message}\n`);
    return 2;
  }
  // Saves killed half-way left their temporary files; the ones of gone processes are removed.
  for (const root of workspace.roots) removeStaleTempFiles(root);
  const hosted = hostedAccessFor(cmd, env, workspace, log);
  if (typeof hosted === 'string') {
    io.stderr.write(`linework: ${hosted}\n`);
    return 2;
  }
  // Picks go to the editor's page; the page is served once the engine exists.
  const relay = graphical ? new PromptRelay() : undefined;
  const api = createEngine({ appVersion: appVersion(), workspace, gui: relay, ...(cmd.files.length ? { empty: true } : {}) });
  if (cmd.files.length) await openFiles(api, cmd.files, log);
  const unknownTools = (cmd.tools ?? []).filter((t) => t !== 'all' && !toolGroups(api.catalogue).includes(t));
  if (unknownTools.length) {
    io.stderr.write(`linework: --tools: no tool group ${unknownTools.join(', ')}; the groups are ${toolGroups(api.catalogue).join(', ')} (or all)\n`);
    return 2;
  }

  // A bug in one request must not take the session's unsaved drawings down with the process:
  // replies are built defensively, and whatever still escapes is logged and the server goes on.
  process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection (a bug); the server goes on'));
  process.on('uncaughtException', (err) => log.error({ err }, 'uncaught exception (a bug); the server goes on'));

  const closers: Array<() => Promise<void>> = [];
  const needsToken = cmd.http !== undefined || cmd.tcp !== undefined;
  const auth = needsToken ? new TokenCheck(resolveToken(env)) : null;
  // One HTTP surface for the automation port and the editor's: one route table, one cached
  // document id, one series of generated request ids.
  let baseUrl = '';
  const httpApi = auth ? new HttpApi(api, auth, { baseUrl: () => baseUrl, onRequest: requestLogger(log), ...(hosted ? { hosted } : {}) }) : null;
  if (cmd.http !== undefined) {
    const http = await startHttpServer({
      api, auth: auth!, port: cmd.http, idleMs: config.idleMs, httpApi: httpApi!, ...(cmd.host ? { host: cmd.host } : {}),
      headDeadlineMs: config.headDeadlineMs, bodyDeadlineMs: config.bodyDeadlineMs, logger: log,
      // Many organizations behind one front: each gets its own share of the connections.
      ...(hosted ? { gate: { total: Math.max(config.hostedConnections, config.bucketConnections), perBucket: config.bucketConnections, bucketOf: (h: Record<string, string>) => httpApi!.bucketOf(h) } } : {}),
    });
    baseUrl = http.url;
    closers.push(http.close);
    io.stderr.write(`${http.url}\n`);
  }
  if (relay && httpApi && auth) {
    const host = await startEditorHost({
      engine: api, port: cmd.guiPort ?? 0, token: auth.token.value,
      authorized: (h) => auth.matchesBearer(h),
      api: async (req) => replyForNodeHttp(await httpApi.handle({ ...req, bodyTooLarge: false })),
      log,
    });
    relay.target = host.bridge;
    closers.push(host.close);
    // The editor's address carries the token in its fragment (never sent to the server); a token
    // the launcher chose is not printed, the launcher appends it.
    io.stderr.write(auth.token.source === 'generated' ? `editor: ${host.url}\n` : `editor: http://127.0.0.1:${host.port}/#token=<SERVICE_API_TOKEN>\n`);
  }
  if (cmd.tcp !== undefined) {
    const tcp = await startTcpServer({ api, auth: auth!, port: cmd.tcp, idleMs: config.idleMs, logger: log, ...(hosted ? { hosted } : {}), ...(cmd.host ? { host: cmd.host } : {}) });
    closers.push(tcp.close);
    io.stderr.write(`${tcp.url}\n`);
  }
  if (hosted) {
    closers.push(() => hosted.close());
    io.stderr.write(`api keys: ${hosted.verifier.base.href.replace(/\/$/, '')}\n`);
  }
  // A generated token is printed once; a token chosen through SERVICE_API_TOKEN never is.
  if (auth && auth.token.source === 'generated') io.stderr.write(`token: ${auth.token.value}\n`);
  log.info({ http: cmd.http, tcp: cmd.tcp, stdio: cmd.stdio, mcp: cmd.mcp, session_id: api.sessionId, roots: workspace.roots }, 'linework ready');
  // the first drawing a client opens then meets compiled code (see warm-up.ts)
  if (cmd.http !== undefined || cmd.tcp !== undefined) setTimeout(() => void warmUp(), 0);

  const shutdown = async (): Promise<void> => {
    await Promise.allSettled(closers.map((c) => c()));
  };
  let stopped = false;
  const stop = new Promise<number>((resolve) => {
    const onSignal = (sig: NodeJS.Signals): void => {
      if (stopped) return;
      stopped = true;
      log.info({ signal: sig }, 'stopping');
      void shutdown().then(() => resolve(0));
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });

  const stream = cmd.stdio ? serveStdio({ api }) : cmd.mcp ? serveMcp({ api, tools: cmd.tools }) : null;
  if (stream && closers.length === 0) {
    // stdio / MCP alone: the end of stdin ends the process after the last answer.
    const code = await Promise.race([stream.then(() => 0), stop]);
    await shutdown();
    return code;
  }
  return stop;
}

