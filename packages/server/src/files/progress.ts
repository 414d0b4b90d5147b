// One status line redrawn in place at the bottom of a terminal (stderr), with ordinary lines printed
// above it. Disabled, it writes nothing: progress never reaches a pipe, a file or stdout.

export interface StatusStream {
  write(s: string): unknown;
  columns?: number;
}

const SPINNER = ['|', '/', '-', '\\'];

export function formatSeconds(s: number): string {
  if (s < 60) return `${s.toFixed(s < 10 ? 2 : 1)} s`;
  const m = Math.floor(s / 60);
  return `${m}:${String(Math.floor(s % 60)).padStart(2, '0')} min`;
}

export class StatusLine {
  private shown = '';
  private turn = 0;

  constructor(
    private readonly out: StatusStream,
    readonly enabled: boolean,
  ) {}

  spinner(): string {
    return SPINNER[this.turn++ % SPINNER.length]!;
  }

  show(text: string): void {
    if (!this.enabled) return;
    const cols = Math.max(20, (this.out.columns || 80) - 1);
    const line = text.length > cols ? text.slice(0, cols - 1) + '~' : text;
    this.out.write(`\r${line}\x1b[K`);
    this.shown = line;
  }

  clear(): void {
    if (!this.shown) return;
    this.out.write('\r\x1b[K');
    this.shown = '';
  }

  /** Writes text (whole lines) to a stream, keeping the status line below it. */
  print(to: { write(s: string): unknown }, text: string): void {
    const again = this.shown;
    this.clear();
    to.write(text);
    if (again) this.show(again);
  }
}
