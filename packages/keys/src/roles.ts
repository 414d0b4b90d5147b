/** Roles in ascending order of power; "at least X" means X or any role after it. */
export const ROLES = ['VIEWER', 'DEVELOPER', 'ADMIN', 'OWNER'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return (ROLES as readonly unknown[]).includes(value);
}

/** -1 for no role, so that a caller without a known role passes no check. */
export function roleRank(role: Role | null): number {
  return role === null ? -1 : ROLES.indexOf(role);
}
