// The application version reported by --version and readiness: the package's own.
import { readFileSync } from 'node:fs';

/** The version in this package's package.json ('0.0.0' when it cannot be read). */
export function appVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
