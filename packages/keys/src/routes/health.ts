import { ApiError } from '../errors.js';
import { HealthResponse } from '../schemas.js';
import { errorResponses } from './responses.js';
import { defineRoute } from './route.js';

/** Readiness for load balancers: answers 200 only while the database answers. */
export const health = defineRoute({
  method: 'GET',
  url: '/health',
  operationId: 'health',
  summary: 'Service and database readiness',
  tag: 'Service',
  minRole: null,
  responses: { 200: { description: 'Ready', schema: HealthResponse }, ...errorResponses({ 503: 'Database unreachable' }) },
  async handler(ctx) {
    let database;
    try {
      ({ database } = await ctx.deps.service.health());
    } catch {
      throw new ApiError('SERVICE_UNAVAILABLE', 'Database unreachable');
    }
    return { status: 200, body: { success: true, data: { status: 'ok', database } } };
  },
});
