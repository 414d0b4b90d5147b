// The one place where failure codes become HTTP statuses, and the reason phrases the server writes.

export const REASONS: Readonly<Record<number, string>> = {
  100: 'Continue',
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  // Beyond the spec's list: only requests made with an API key over a rate or usage limit get it.
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  503: 'Service Unavailable',
};

const STATUS_OF_CODE: Readonly<Record<string, number>> = {
  entity_absent: 404,
  unknown_route: 404,
  stale_state: 409,
  session_changed: 409,
  document_not_active: 409,
  gui_required: 409,
  busy: 503,
  path_outside_root: 403,
  unauthorized: 401,
  method_not_allowed: 405,
  header_too_large: 431,
  // Requests made with an API key (hosted.ts).
  insufficient_permissions: 403,
  rate_limited: 429,
  usage_exceeded: 429,
  keys_unavailable: 503,
  session_unavailable: 503,
  // Work budgets (engine budgets.ts): the request as sent never fits, so it is the client's (400);
  // a full session frees up when a document is closed (409); a deadline may pass on a quieter try (503).
  budget_exceeded: 400,
  session_full: 409,
  deadline_exceeded: 503,
  // The organization's worker ended while the request ran (org-workers.ts).
  session_restarting: 503,
};

/** HTTP status of a failure code; every code not listed is 400. */
export function statusForCode(code: string | undefined): number {
  return (code !== undefined && STATUS_OF_CODE[code]) || 400;
}
