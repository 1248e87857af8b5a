import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { toProblem } from './problem-details.filter';

type FrameworkErrors = (error: Error, request: FastifyRequest, reply: FastifyReply) => void;

/**
 * Fastify answers a bad URL encoding or an over-long path parameter straight from its router, in
 * its own JSON, unless the `frameworkErrors` option is set; the adapter is created in
 * libs/platform without it. Fastify reads that option at call time from its options object, so it
 * is set here. Returns false when this Fastify version keeps its options elsewhere.
 */
export function answerFrameworkErrorsAsProblems(fastify: FastifyInstance): boolean {
  const key = Object.getOwnPropertySymbols(fastify).find((s) => s.description === 'fastify.options');
  const options = key ? ((fastify as unknown as Record<symbol, { frameworkErrors?: FrameworkErrors }>)[key]) : undefined;
  if (!options || typeof options !== 'object') return false;
  options.frameworkErrors = (error, request, reply) => {
    const problem = toProblem(error, request.url.split('?', 1)[0]);
    void reply.code(problem.status).header('Content-Type', 'application/problem+json').send(problem);
  };
  return true;
}
