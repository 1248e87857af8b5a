import { ErrorCodes, HeadspaceError, ValidationError } from '@headspace/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Deeper than any request schema allows: a body nested further is refused before it is parsed,
 * so no recursive function (JSON.stringify, a zod walk, the pg driver) ever sees it.
 */
export const MAX_BODY_DEPTH = 64;

const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml'];

// fatal: a byte sequence that is not UTF-8 is an error, never U+FFFD stored in place of the text.
const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(body: Buffer): string {
  try {
    return utf8.decode(body);
  } catch {
    throw new HeadspaceError(ErrorCodes.gatewayBadJson, 'The request body is not valid UTF-8');
  }
}

/**
 * The first top-level field under which the JSON text nests deeper than `max`, '(root)' when the
 * root itself does, or undefined. One linear scan of the text, no recursion.
 */
export function tooDeepField(text: string, max: number): string | undefined {
  let depth = 0;
  let inString = false;
  let stringStart = 0;
  let rootIsObject = false;
  let lastTopLevelString: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) {
        inString = false;
        if (depth === 1 && rootIsObject) lastTopLevelString = text.slice(stringStart, i + 1);
      }
    } else if (c === 0x22) {
      inString = true;
      stringStart = i;
    } else if (c === 0x7b || c === 0x5b) {
      if (depth === 0) rootIsObject = c === 0x7b;
      if (++depth > max) return fieldName(rootIsObject ? lastTopLevelString : undefined);
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return undefined;
}

function fieldName(literal: string | undefined): string {
  if (literal === undefined) return '(root)';
  try {
    return JSON.parse(literal) as string;
  } catch {
    return '(root)';
  }
}

/**
 * JSON (and YAML text for manifests) with the configured size limit; anything else is 415, as
 * Fastify answers a type no parser is registered for. The body is read as bytes and decoded
 * strictly, its nesting bounded, then parsed by Fastify's own JSON parser (prototype-poisoning
 * checks included).
 */
export function registerBodyParsers(fastify: FastifyInstance, bodyLimit: number): void {
  for (const type of ['application/json', 'application/x-www-form-urlencoded', 'text/plain']) {
    if (fastify.hasContentTypeParser(type)) fastify.removeContentTypeParser(type);
  }
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit }, (request: FastifyRequest, body: Buffer, done) => {
    let text: string;
    try {
      text = decodeUtf8(body);
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    const deep = tooDeepField(text, MAX_BODY_DEPTH);
    if (deep !== undefined) {
      done(new ValidationError('request body', [{ field: deep, message: `must nest at most ${MAX_BODY_DEPTH} levels` }]), undefined);
      return;
    }
    parseJson(request, text, done);
  });
  fastify.addContentTypeParser(YAML_TYPES, { parseAs: 'buffer', bodyLimit }, (_request: FastifyRequest, body: Buffer, done) => {
    try {
      done(null, decodeUtf8(body));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
