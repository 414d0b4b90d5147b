import { createRequire } from 'node:module';

/** The package version (also the OpenAPI `info.version`). */
export const SERVICE_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
