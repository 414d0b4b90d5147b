/**
 * The allowed permission list and the normalisation of a submitted list (DECISIONS.md, "API key
 * service"): trim, lower-case, expand `*` and `resource:*`, drop duplicates, order by the allowed
 * list. Entries still not allowed afterwards are reported as submitted (trimmed).
 */

export const DEFAULT_PERMISSIONS: readonly string[] = Object.freeze([
  'drawings:read',
  'drawings:write',
  'drawings:delete',
  'blocks:read',
  'blocks:write',
  'layers:read',
  'layers:write',
  'plots:create',
]);

const PERMISSION_SHAPE = /^[a-z0-9][a-z0-9_.-]*:[a-z0-9][a-z0-9_.-]*$/;

/**
 * Parses `API_KEY_PERMISSIONS`. Entries are lower-cased so that normalised submissions (which are
 * lower-cased) can match them; a wildcard inside the allowed list would make expansion ambiguous, so
 * every entry must be a concrete `resource:action`.
 */
export function parseAllowedPermissions(value: string | undefined): string[] {
  if (value === undefined) return [...DEFAULT_PERMISSIONS];
  const seen = new Set<string>();
  for (const raw of value.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (!PERMISSION_SHAPE.test(entry)) {
      throw new Error(`API_KEY_PERMISSIONS: "${raw.trim()}" is not of the form resource:action`);
    }
    seen.add(entry);
  }
  if (seen.size === 0) throw new Error('API_KEY_PERMISSIONS is set but lists no permission');
  return [...seen];
}

export type NormaliseResult =
  | { ok: true; permissions: string[] }
  | { ok: false; invalid: string[] };

/**
 * A precomputed view of the allowed list so that normalising (which also runs on every verification)
 * costs a few map look-ups.
 */
export class PermissionSet {
  readonly allowed: readonly string[];
  private readonly rank: Map<string, number>;
  private readonly byResource: Map<string, string[]>;

  constructor(allowed: readonly string[]) {
    this.allowed = Object.freeze([...allowed]);
    this.rank = new Map(allowed.map((p, i) => [p, i]));
    this.byResource = new Map();
    for (const p of allowed) {
      const resource = p.slice(0, p.indexOf(':'));
      const list = this.byResource.get(resource) ?? [];
      list.push(p);
      this.byResource.set(resource, list);
    }
  }

  normalise(submitted: readonly string[]): NormaliseResult {
    const picked = new Set<string>();
    const invalid: string[] = [];
    for (const entry of submitted) {
      const trimmed = entry.trim();
      const lower = trimmed.toLowerCase();
      if (lower === '*') {
        for (const p of this.allowed) picked.add(p);
      } else if (lower.endsWith(':*')) {
        const expansion = this.byResource.get(lower.slice(0, -2));
        if (expansion) for (const p of expansion) picked.add(p);
        else if (!invalid.includes(trimmed)) invalid.push(trimmed);
      } else if (this.rank.has(lower)) {
        picked.add(lower);
      } else if (!invalid.includes(trimmed)) {
        invalid.push(trimmed);
      }
    }
    if (invalid.length > 0) return { ok: false, invalid };
    return { ok: true, permissions: [...picked].sort((a, b) => this.rank.get(a)! - this.rank.get(b)!) };
  }
}

export function invalidPermissionsMessage(invalid: readonly string[]): string {
  return `Invalid API key permissions: ${invalid.join(', ')}`;
}
