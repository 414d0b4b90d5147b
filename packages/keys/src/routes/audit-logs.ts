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
    200: { description: 'One page; nextCursor fetches the next', schema: AuditLogsResponse },
    ...errorResponses({ 400: 'Invalid query or cursor', 401: undefined, 403: undefined }),
  },
  async handler(ctx) {
    const page = await ctx.deps.service.auditLogs(caller(ctx).organizationId, ctx.query);
    return { status: 200, body: { success: true, data: page.entries, nextCursor: page.nextCursor } };
  },
});
