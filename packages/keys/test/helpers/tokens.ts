import { SignJWT } from 'jose';
import { TEST_SECRET } from './service.js';

export interface TokenOptions {
  sub?: string;
  org?: string;
  role?: string;
  secret?: string;
  /** Seconds from now; negative for an expired token. */
  expiresIn?: number;
  /** Claims left out; every token carries `exp` unless it is named here. */
  omit?: Array<'sub' | 'org' | 'role' | 'exp'>;
}

/** HS256 tokens as an identity provider would issue them (signed with jose, not with our code). */
export async function token(options: TokenOptions = {}): Promise<string> {
  const claims: Record<string, unknown> = { org: options.org ?? 'org-a', role: options.role ?? 'DEVELOPER' };
  const omit = new Set(options.omit ?? []);
  for (const k of ['org', 'role'] as const) if (omit.has(k)) delete claims[k];
  const now = Math.floor(Date.now() / 1000);
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuedAt(now - 60);
  if (!omit.has('sub')) jwt = jwt.setSubject(options.sub ?? 'user-1');
  if (!omit.has('exp')) jwt = jwt.setExpirationTime(now + (options.expiresIn ?? 3600));
  return jwt.sign(new TextEncoder().encode(options.secret ?? TEST_SECRET));
}
