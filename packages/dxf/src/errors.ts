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

/** Why a DWG drawing could not be read. */
export type DwgErrorCode =
  /** Neither libredwg-web nor the ODA File Converter is installed. */
  | 'dwg_reader_missing'
  /** The reader ran and could not read the file (its message is in the error's). */
  | 'invalid_dwg';

/** A DWG drawing that could not be read: the message names the reader and what it said. */
export class DwgError extends DxfError {
  constructor(
    readonly code: DwgErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DwgError';
  }
}
