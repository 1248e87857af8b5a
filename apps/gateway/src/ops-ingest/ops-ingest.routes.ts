import { ErrorCodes, HeadspaceError, opsProjectIdSchema, opsProjectNameSchema, refuseNulCharacters, ValidationError } from '@headspace/contracts';
import type { NatsConnection } from '@nats-io/nats-core';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { MAX_BODY_DEPTH, tooDeepField } from '../http/body-parsers';
import { toProblem } from '../http/problem-details.filter';
import { decodeBody, requireMediaType, utf8Text } from './ingest-body';
import { countItems, forwardReport, type IngestRoute } from './ingest-forwarder';
import { plainIngestKey, sentryKey } from './ingest-key';
import { reportFromPlainBody } from './plain-report';
import { parseEnvelope } from './sentry-envelope';
import { reportFromSentryEvent } from './sentry-event';
import { isObject } from './report-fields';

export interface OpsIngestSettings {
  /** Largest body, as sent and once decompressed (HS_OPS_INGEST_MAX_BYTES). */
  maxBytes: number;
  /** How long ops-leon may take to answer (HS_REQUEST_TIMEOUT_MS). */
  timeoutMs: number;
}

export const PLAIN_PATH = '/api/v1/ops/projects/:project/exceptions';
export const ENVELOPE_PATH = '/api/:projectId/envelope/';
export const STORE_PATH = '/api/:projectId/store/';

/** Where the parser leaves the raw bytes: a symbol, so the NUL-character hook does not walk them. */
const RAW = Symbol('ingest body');
type RawBody = { [RAW]: Buffer };

const ENVELOPE_TYPES = ['application/x-sentry-envelope', 'application/json', 'text/plain', 'application/octet-stream'];
const STORE_TYPES = ['application/json', 'text/plain', 'application/octet-stream'];
const PLAIN_TYPES = ['application/json', 'text/plain'];

/**
 * The exception ingest routes, in their own Fastify context: every body is read as bytes (whatever
 * its Content-Type, or none: the Node Sentry SDK sends none), then decompressed and parsed here.
 * The root hooks (address rate limit; the bearer-token lookup, which skips these paths) still run.
 */
export function opsIngestPlugin(nc: NatsConnection, settings: OpsIngestSettings) {
  return async (fastify: FastifyInstance) => {
    fastify.removeAllContentTypeParsers();
    fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: settings.maxBytes }, (_req, body, done) => {
      done(null, { [RAW]: body as Buffer } satisfies RawBody);
    });
    fastify.setErrorHandler(answerProblem);

    const body = async (req: FastifyRequest, accepted: readonly string[]) => {
      requireMediaType(req.headers['content-type'], accepted);
      const raw = (req.body as RawBody | undefined)?.[RAW] ?? Buffer.alloc(0);
      return decodeBody(raw, req.headers['content-encoding'], settings.maxBytes);
    };
    const forward = (route: IngestRoute) => (project: string, key: Parameters<typeof forwardReport>[2], report: Parameters<typeof forwardReport>[3]) =>
      forwardReport(nc, project, key, report, { timeoutMs: settings.timeoutMs, route });

    const plain = async (req: FastifyRequest, reply: FastifyReply) => {
      const project = pathParam(req, 'project', opsProjectNameSchema);
      const key = plainIngestKey(req.headers);
      const json = parseJson(await body(req, PLAIN_TYPES), 'request body');
      refuseNulCharacters(json, 'request body');
      const answer = await forward('plain')(project, key, reportFromPlainBody(json));
      return reply.code(202).send(answer);
    };

    const envelope = async (req: FastifyRequest, reply: FastifyReply) => {
      const project = pathParam(req, 'projectId', opsProjectIdSchema);
      const parsed = parseEnvelope(await body(req, ENVELOPE_TYPES));
      const key = sentryKey(req.headers, req.query as Record<string, unknown>, parsed.header.dsn);
      // Every event is read before any is sent: a malformed one refuses the envelope, nothing recorded.
      const reports = [];
      const dropped = new Map<string, number>();
      for (const [index, item] of parsed.items.entries()) {
        if (item.type !== 'event') {
          dropped.set(item.type, (dropped.get(item.type) ?? 0) + 1);
          continue;
        }
        const event = parseJson(item.payload, `items.${index}.payload`);
        if (!isObject(event)) throw notAnObject(`items.${index}.payload`);
        if (reports.length === 0 && event.event_id === undefined) event.event_id = parsed.header.event_id;
        reports.push(reportFromSentryEvent(event, 'sentry-envelope'));
      }
      for (const [type, n] of dropped) countItems('envelope', type, 'dropped', n);
      const answers = [];
      for (const report of reports) answers.push(await forward('envelope')(project, key, report));
      const id = answers[0]?.eventId ?? (typeof parsed.header.event_id === 'string' ? parsed.header.event_id : null);
      return reply.code(200).send({ id, accepted: answers.length, dropped: Object.fromEntries(dropped) });
    };

    const store = async (req: FastifyRequest, reply: FastifyReply) => {
      const project = pathParam(req, 'projectId', opsProjectIdSchema);
      const key = sentryKey(req.headers, req.query as Record<string, unknown>);
      const event = parseJson(await legacyStoreBody(await body(req, STORE_TYPES), settings.maxBytes), 'request body');
      if (!isObject(event)) throw notAnObject('(root)');
      const answer = await forward('store')(project, key, reportFromSentryEvent(event, 'sentry-store'));
      return reply.code(200).send({ id: answer.eventId });
    };

    // SDKs write the trailing slash; curl users often do not. Both reach the same handler.
    for (const [path, handler] of [
      [PLAIN_PATH, plain],
      [ENVELOPE_PATH, envelope],
      [STORE_PATH, store],
    ] as const) {
      fastify.post(path, handler);
      fastify.post(path.endsWith('/') ? path.slice(0, -1) : `${path}/`, handler);
    }
  };
}

/** A path parameter by its schema, or a 400 naming it (the schema is used as is: no per-request object schema to build). */
function pathParam<S extends z.ZodType<string>>(req: FastifyRequest, name: string, schema: S): string {
  const result = schema.safeParse((req.params as Record<string, string>)[name]);
  if (!result.success) throw new ValidationError('path parameter', [{ field: name, message: result.error.issues[0]?.message ?? 'invalid' }]);
  return result.data;
}

/** Strict UTF-8, nesting bounded as for every gateway body (a linear scan before the parse), then JSON. */
function parseJson(bytes: Buffer, field: string): unknown {
  const text = utf8Text(bytes, field);
  const deep = tooDeepField(text, MAX_BODY_DEPTH);
  if (deep !== undefined) {
    const named = deep === '(root)' ? field : field === 'request body' ? deep : `${field}.${deep}`;
    throw new ValidationError(field, [{ field: named, message: `must nest at most ${MAX_BODY_DEPTH} levels` }]);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new HeadspaceError(ErrorCodes.gatewayBadJson, `${field} is not valid JSON`, { field });
  }
}

const notAnObject = (field: string) => new HeadspaceError(ErrorCodes.gatewayBadRequest, `${field} must be a JSON object (a Sentry event)`, { field });

/** Old raven clients send the store body as base64 of zlib-deflated JSON. */
async function legacyStoreBody(bytes: Buffer, maxBytes: number): Promise<Buffer> {
  const first = bytes.find((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09);
  if (first === undefined || first === 0x7b || first === 0x5b) return bytes;
  const text = bytes.toString('latin1').trim();
  if (!/^[A-Za-z0-9+/=_-]+$/.test(text)) return bytes;
  return decodeBody(Buffer.from(text, 'base64'), 'deflate', maxBytes);
}

/**
 * Problems as everywhere in the gateway (RFC 9457 problem+json with the stable code), plus what
 * Sentry SDKs read: Retry-After and X-Sentry-Rate-Limits on 429, so they back off instead of retrying.
 */
function answerProblem(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const problem = toProblem(error, request.url.split('?', 1)[0]);
  if (problem.status === 429) {
    const retryAfter = reply.getHeader('retry-after') ?? retryAfterOf(error);
    void reply.header('Retry-After', String(retryAfter));
    void reply.header('X-Sentry-Rate-Limits', `${retryAfter}::project`);
  }
  if (problem.status === 503) void reply.header('Retry-After', '2');
  if (problem.status >= 500 && problem.status !== 503) request.log.error({ err: error, code: problem.code }, problem.detail);
  return reply.code(problem.status).header('Content-Type', 'application/problem+json').send(problem);
}

function retryAfterOf(error: unknown): number {
  const details = (error as { details?: Record<string, unknown> }).details;
  const seconds = Number(details?.retryAfterSeconds ?? details?.retryAfter);
  return Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : 60;
}
