import { refuseNulCharacters } from '@headspace/contracts';
import type { FastifyRequest } from 'fastify';

/**
 * Fastify preValidation hook (after the body is parsed, before any handler): U+0000 in a path
 * parameter, a query parameter or anywhere in the body is a 400 naming the field. PostgreSQL text
 * cannot hold it, so it must never travel further than the edge.
 */
export async function refuseNulCharactersHook(req: FastifyRequest): Promise<void> {
  refuseNulCharacters(req.params, 'path parameter');
  refuseNulCharacters(req.query, 'query string');
  refuseNulCharacters(req.body, 'request body');
}
