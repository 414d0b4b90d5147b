// @linework/server: the transports over the engine's dispatcher, usable as a library.
export { LIMITS, loadConfig, type TransportConfig } from './config.js';
export { TokenCheck, resolveToken, type SessionToken, type TokenSource } from './auth.js';
export { REASONS, statusForCode } from './status.js';
export { HttpApi, parseBody, type HttpApiOptions } from './http-api.js';
export { HeadReader, contentLength, formatResponse, parseHeaderLines, serveConnection, type HttpReply, type RawRequest } from './http-wire.js';
export { startHttpServer, LOOPBACK, type HttpServerOptions, type RunningHttpServer } from './http-server.js';
export { API_PREFIX, Router, WRAPPER_OPS, decodeComponent, parseQuery, parseTarget } from './routes.js';
export { buildOpenApi, type OpenApiOptions } from './openapi.js';
export { LineSplitter, OrderedWriter, parseLine } from './jsonl.js';
export { serveStdio, type StdioOptions } from './stdio.js';
export { startTcpServer, type RunningTcpServer, type TcpServerOptions } from './tcp.js';
export { createMcpServer, serveMcp, toolInputSchema, toolResult, imageFrom, findRenderer, type McpOptions } from './mcp.js';
export { createLogger, silentLogger } from './logger.js';
export { main, parseArgs, USAGE, type Command } from './cli.js';
