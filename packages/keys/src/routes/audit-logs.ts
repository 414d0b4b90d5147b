import { AuditLogQuery, AuditLogsResponse } from '../schemas.js';
import { errorResponses } from './responses.js';
import { caller, defineRoute } from './route.js';

export const listAuditLogs = defineRoute({
  method: 'GET',
  url: '/audit-logs',
  operationId: 'listAuditLogs',
  summary: "The caller organization's audit records, newest first, by pages",
  tag: 'Audit',
  minRole: 'ADMIN',
  query: AuditLogQuery,
  responses: {
    200: {
      description: 'One page. When older records follow, `Link` holds the next page (rel="next"): the same query with `before` set to the id of the last record.',
      schema: AuditLogsResponse,
      headers: { Link: 'Present when more records follow: `</audit-logs?...&before=<id>>; rel="next"`' },
    },
    ...errorResponses({ 400: 'Invalid query, or a `before` that is no audit record of the organization', 401: undefined, 403: undefined }),
  },
  async handler(ctx) {
    const page = await ctx.deps.service.auditLogs(caller(ctx).organizationId, ctx.query);
    const last = page.entries[page.entries.length - 1];
    // The envelope stays {success, data}; the next page is announced the RFC 8288 way.
    const headers = page.more && last ? { Link: `<${nextPageUrl(ctx.query, last.id)}>; rel="next"` } : undefined;
    return { status: 200, body: { success: true, data: page.entries }, ...(headers ? { headers } : {}) };
  },
});

function nextPageUrl(query: { action?: string | undefined; limit: number }, before: string): string {
  const params = new URLSearchParams();
  if (query.action !== undefined) params.set('action', query.action);
  params.set('limit', String(query.limit));
  params.set('before', before);
  return `/audit-logs?${params.toString()}`;
}
