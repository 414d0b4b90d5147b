// `--stdio`: one protocol-1 request per line on stdin, one answer per line on stdout, in order.
import type { Readable, Writable } from 'node:stream';
import type { DispatcherApi } from '@linework/engine';
import { LIMITS } from './config.js';
import { LineSplitter, OrderedWriter, parseLine, tooLargeResponse } from './jsonl.js';

export interface StdioOptions {
  api: DispatcherApi;
  input?: Readable;
  output?: Writable;
  maxLineBytes?: number;
}

/** Requests read ahead of their answers before reading pauses (the output is slower than the input). */
const MAX_IN_FLIGHT = 256;

/** Serves JSON lines until the input ends; resolves after the last answer is written. */
export function serveStdio(options: StdioOptions): Promise<void> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const maxLine = options.maxLineBytes ?? LIMITS.maxJsonLineBytes;
  const write = (chunk: Buffer): Promise<void> | void => {
    if (output.write(chunk)) return;
    return new Promise<void>((resolve) => {
      const done = (): void => {
        output.off('drain', done);
        output.off('close', done);
        output.off('error', done);
        resolve();
      };
      output.on('drain', done);
      output.on('close', done);
      output.on('error', done);
    });
  };
  const writer = new OrderedWriter(write);
  // The input ending takes the picks its requests wait for with it (the client can no longer
  // send `cancel`); every other request is still answered.
  const gone = new AbortController();
  const resumeWhenDrained = (): void => {
    if (input.isPaused() && writer.pending < MAX_IN_FLIGHT / 2) input.resume();
  };
  const splitter = new LineSplitter(
    maxLine,
    (line) => {
      const parsed = parseLine(line);
      if (parsed.kind === 'blank') return;
      const answer = parsed.kind === 'invalid' ? parsed.response : options.api.dispatch(parsed.req, { signal: gone.signal });
      void writer.push(answer).then(resumeWhenDrained);
      if (writer.pending >= MAX_IN_FLIGHT) input.pause();
    },
    () => void writer.push(tooLargeResponse(maxLine)),
  );
  return new Promise<void>((resolve) => {
    let ended = false;
    const finish = (): void => {
      if (ended) return;
      ended = true;
      splitter.end();
      gone.abort();
      void writer.drained().then(() => resolve());
    };
    input.on('data', (chunk: Buffer | string) => splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    input.once('end', finish);
    input.once('close', finish);
    input.once('error', finish);
  });
}
