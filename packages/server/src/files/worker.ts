// A worker thread of the batch runner: runs one single-file command at a time, exactly as the
// command line would, and hands back its exit code and what it printed. In live mode (one file, a
// terminal) what it prints is passed on as it is written, progress bars included.
import { parentPort } from 'node:worker_threads';
import { FILE_COMMANDS, type CommandIo, type FileCommandName } from './commands.js';

export interface Task {
  id: number;
  command: FileCommandName;
  args: string[];
  /** Pass output on as it is written, telling the command stderr is a terminal this wide. */
  live?: { columns: number };
}

export type WorkerMessage =
  | { type: 'stdout' | 'stderr'; id: number; text: string }
  | { type: 'done'; id: number; code: number; stdout: string; stderr: string; seconds: number };

const port = parentPort;
if (port) {
  port.on('message', (task: Task) => {
    void run(task).then((m) => port.postMessage(m));
  });
}

async function run(task: Task): Promise<WorkerMessage> {
  const started = performance.now();
  let stdout = '';
  let stderr = '';
  const post = (type: 'stdout' | 'stderr') => (s: unknown): boolean => {
    port!.postMessage({ type, id: task.id, text: String(s) } satisfies WorkerMessage);
    return true;
  };
  const io: CommandIo = task.live
    ? { stdout: { write: post('stdout') }, stderr: { write: post('stderr'), isTTY: true, columns: task.live.columns } }
    : {
        stdout: { write: (s: unknown) => ((stdout += String(s)), true) },
        stderr: { write: (s: unknown) => ((stderr += String(s)), true) },
      };
  let code: number;
  try {
    const command = await FILE_COMMANDS[task.command].load();
    code = await command(task.args, io);
  } catch (err) {
    stderr += `linework ${task.command}: ${(err as Error)?.message ?? String(err)}\n`;
    code = 1;
  }
  return { type: 'done', id: task.id, code, stdout, stderr, seconds: (performance.now() - started) / 1000 };
}
