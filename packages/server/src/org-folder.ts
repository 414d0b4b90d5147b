// Where an organization's files live: its own folder under the workspace root, named after its
// id. Ids come from the key service (any text a token's `org` claim held), so the name is an
// encoding, not a clean-up: one-to-one (two organizations never share a folder, also on
// case-insensitive file systems) and unable to name anything but one folder right below the root.
import { createHash } from 'node:crypto';
import { lstat, mkdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';

/** Longest folder name (file systems allow 255 bytes; ids may be long). */
const MAX_NAME = 128;

/**
 * The folder name of an organization id: lower-case letters, digits and `-` as they are, every
 * other UTF-8 byte as `_` and two lower-case hex digits (`Acme Ltd` -> `_41cme_20_4ctd`). `_` only
 * ever starts an escape, so the encoding can be read back and no two ids meet; `.`, `/` and `\`
 * are escaped, so `..` or a path cannot come out. An empty id is `_`. A name longer than 128
 * characters keeps its first 64 and adds `~` and 32 hex digits of the id's SHA-256 (`~` is never
 * in a short name).
 */
export function orgFolderName(orgId: string): string {
  let out = '';
  for (const byte of Buffer.from(orgId, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[a-z0-9-]/.test(c) ? c : `_${byte.toString(16).padStart(2, '0')}`;
  }
  if (out === '') return '_';
  if (out.length <= MAX_NAME) return out;
  return `${out.slice(0, 64)}~${createHash('sha256').update(orgId, 'utf8').digest('hex').slice(0, 32)}`;
}

/**
 * Creates (when missing) and returns the organization's folder below `root`. Refuses one that is
 * not a real folder right below the root, such as a symlink someone placed there.
 */
export async function ensureOrgFolder(root: string, orgId: string): Promise<string> {
  const realRoot = await realpath(root);
  const dir = join(realRoot, orgFolderName(orgId));
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const st = await lstat(dir);
  if (!st.isDirectory() || (await realpath(dir)) !== dir) {
    throw new Error(`the organization folder ${dir} is not a plain folder inside the workspace root`);
  }
  return dir;
}
