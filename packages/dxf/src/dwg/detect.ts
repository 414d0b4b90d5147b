// Telling a DWG file from DXF by its first six bytes: every DWG since R1.2 starts with its version
// string (`AC1015`), which no DXF file does (ASCII DXF starts with a group code, binary DXF with
// its sentinel).

/** DWG versions the converters read: R13 (AC1012) to R2018 (AC1032). */
export const DWG_READABLE_VERSIONS = ['AC1012', 'AC1014', 'AC1015', 'AC1018', 'AC1021', 'AC1024', 'AC1027', 'AC1032'] as const;

const RELEASES: Record<string, string> = {
  AC1012: 'R13', AC1014: 'R14', AC1015: 'R2000', AC1018: 'R2004', AC1021: 'R2007', AC1024: 'R2010', AC1027: 'R2013', AC1032: 'R2018',
  AC1009: 'R11/R12', AC1006: 'R10', AC1004: 'R9', AC1003: 'R2.6', AC1002: 'R2.5', AC1001: 'R2.22',
};

/** The release name of a DWG version string (`AC1015` -> `R2000`), or the string itself. */
export function dwgRelease(version: string): string {
  return RELEASES[version] ?? version;
}

/** The DWG version string the bytes start with (`AC1015`), or null when they are not DWG. */
export function dwgVersionOf(head: Uint8Array): string | null {
  if (head.length < 6) return null;
  if (head[0] !== 0x41 || head[1] !== 0x43) return null; // 'AC'
  for (let i = 2; i < 6; i++) if (head[i]! < 0x30 || head[i]! > 0x39) return null;
  return String.fromCharCode(...head.subarray(0, 6));
}

export function isReadableDwgVersion(version: string): boolean {
  return (DWG_READABLE_VERSIONS as readonly string[]).includes(version);
}
