import { describe, expect, it } from 'vitest';
import { DEFAULT_PERMISSIONS, PermissionSet, invalidPermissionsMessage, parseAllowedPermissions } from '../src/permissions.js';

describe('allowed permission list', () => {
  it('defaults to the eight documented permissions', () => {
    expect(parseAllowedPermissions(undefined)).toEqual([
      'drawings:read',
      'drawings:write',
      'drawings:delete',
      'blocks:read',
      'blocks:write',
      'layers:read',
      'layers:write',
      'plots:create',
    ]);
  });

  it('is replaced by API_KEY_PERMISSIONS (trimmed, lower-cased, de-duplicated, empty entries dropped)', () => {
    expect(parseAllowedPermissions(' Reports:Read, reports:write,,reports:read ')).toEqual(['reports:read', 'reports:write']);
  });

  it('refuses wildcards, malformed entries and an empty list', () => {
    expect(() => parseAllowedPermissions('reports:*')).toThrow(/resource:action/);
    expect(() => parseAllowedPermissions('admin')).toThrow(/resource:action/);
    expect(() => parseAllowedPermissions(' , ')).toThrow(/no permission/);
  });
});

describe('normalisation', () => {
  const set = new PermissionSet(DEFAULT_PERMISSIONS);

  it.each([
    [['drawings:read'], ['drawings:read']],
    [['  DRAWINGS:Read  '], ['drawings:read']],
    [['plots:create', 'drawings:read', 'plots:create'], ['drawings:read', 'plots:create']],
    [['layers:*'], ['layers:read', 'layers:write']],
    [['LAYERS:*', 'layers:write'], ['layers:read', 'layers:write']],
    [['*'], [...DEFAULT_PERMISSIONS]],
    [[' * ', 'blocks:read'], [...DEFAULT_PERMISSIONS]],
    [['plots:*', 'blocks:write', 'drawings:delete'], ['drawings:delete', 'blocks:write', 'plots:create']],
    [[], []],
  ])('%j -> %j', (submitted, expected) => {
    expect(set.normalise(submitted)).toEqual({ ok: true, permissions: expected });
  });

  it('reports invalid entries as submitted, trimmed, once each, in submission order', () => {
    expect(set.normalise([' Foo:Bar ', 'drawings:read', 'nope:*', '', 'Foo:Bar', 'drawings', ':*'])).toEqual({
      ok: false,
      invalid: ['Foo:Bar', 'nope:*', '', 'drawings', ':*'],
    });
    expect(invalidPermissionsMessage(['a', 'b'])).toBe('Invalid API key permissions: a, b');
  });

  it('expands against a custom list', () => {
    const custom = new PermissionSet(parseAllowedPermissions('reports:write,reports:read,users:read'));
    expect(custom.normalise(['*'])).toEqual({ ok: true, permissions: ['reports:write', 'reports:read', 'users:read'] });
    expect(custom.normalise(['REPORTS:*'])).toEqual({ ok: true, permissions: ['reports:write', 'reports:read'] });
    expect(custom.normalise(['drawings:read'])).toEqual({ ok: false, invalid: ['drawings:read'] });
  });
});
