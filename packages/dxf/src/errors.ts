// The one error type of the DXF library: the message names the source line when one is known, so
// a user can open the file at the spot (`line 1234: expected a group code, got "abc"`).

export class DxfError extends Error {
  /** 1-based source line, when known. */
  readonly line: number | undefined;

  constructor(message: string, line?: number) {
    super(line !== undefined && line > 0 ? `line ${line}: ${message}` : message);
    this.name = 'DxfError';
    this.line = line;
  }
}
