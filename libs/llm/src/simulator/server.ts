import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ErrorCodes } from '@headspace/contracts';
import {
  buildMessage,
  formatSse,
  pickReply,
  readContext,
  requestHash,
  selectScenario,
  streamEvents,
  SIMULATED_LABEL,
} from './engine';
import { generationMs, type SimulatedLatency } from './latency';
import { PromptCache } from './prompt-cache';
import {
  cacheControlProblem,
  countTokensRequestSchema,
  describeIssues,
  messagesRequestSchema,
  requestSegments,
  sha256,
  type MessagesRequest,
} from './request';
import type { Scenario } from './scenario';
import { BatchApiError, matchBatchRoute, SimulatorBatches, type BatchResult } from './batches';

export interface SimulatorOptions {
  scenarios: readonly Scenario[];
  /** Default delay the simulator asks clients to wait before retrying a scripted 429/529. */
  retryAfterMs?: number;
  /** Clock for cache ttl (tests may inject one). */
  now?: () => number;
  /** Max request body in bytes (default 32 MiB, like the API). */
  maxBodyBytes?: number;
  /** Answer as slowly as a model would (default: at once). */
  latency?: SimulatedLatency;
  /** Message Batches: time from create to the last request answered (default 1 s). */
  batchProcessingMs?: number;
}

/** An error response (`status` + API error `type`), or with `delayMs` only: a slow answer. */
export type ScriptedFault =
  | { status: number; type: string; message?: string; retryAfterMs?: number }
  | { delayMs: number };

export type ApiErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'overloaded_error';

/** The request handler, separate from listening so it can be mounted elsewhere. */
export class SimulatorHandler {
  readonly cache: PromptCache;
  private readonly attempts = new Map<string, number>();
  private readonly faults: ScriptedFault[] = [];
  private requestCounter = 0;
  /** The last valid POST /v1/messages body, as the simulator read it (for specs about what a client sends). */
  lastRequest?: MessagesRequest;
  /** The Message Batches API (`/v1/messages/batches`), answered by the same engine. */
  readonly batches: SimulatorBatches;

  constructor(private readonly options: SimulatorOptions) {
    this.cache = new PromptCache(options.now);
    this.batches = new SimulatorBatches((params) => this.batchAnswer(params), { processingMs: options.batchProcessingMs, now: options.now });
  }

  /** Clears the prompt cache, scripted-error counters and queued faults. */
  reset(): void {
    this.cache.clear();
    this.attempts.clear();
    this.faults.length = 0;
    this.lastRequest = undefined;
    this.batches.clear();
  }

  /** The next `faults.length` calls to POST /v1/messages fail with these errors, in order. */
  failNext(...faults: ScriptedFault[]): void {
    this.faults.push(...faults);
  }

  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    void this.route(req, res).catch((error: unknown) => {
      if (!res.headersSent) this.sendError(res, 500, 'api_error', `simulator failure: ${(error as Error).message}`);
      else res.end();
    });
  };

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.setHeader('x-headspace-simulated', 'true');
    res.setHeader('request-id', `req_sim_${(++this.requestCounter).toString().padStart(8, '0')}`);
    const path = (req.url ?? '/').split('?')[0];
    if ((req.method === 'GET' || req.method === 'HEAD') && path === '/api/hello') {
      // The Claude Code CLI probes this before its first call; the real endpoint answers 200.
      this.sendJson(res, 200, { message: 'hello', simulated: true });
      return;
    }
    if (req.method === 'GET' && (path === '/health' || path === '/')) {
      this.sendJson(res, 200, { ok: true, simulated: true, scenarios: this.options.scenarios.map((s) => s.id) });
      return;
    }
    const batchRoute = matchBatchRoute(req.method ?? 'GET', path);
    if (batchRoute) {
      await this.batchRoute(req, res, batchRoute);
      return;
    }
    if (req.method !== 'POST' || (path !== '/v1/messages' && path !== '/v1/messages/count_tokens')) {
      this.sendError(res, 404, 'not_found_error', `${SIMULATED_LABEL} no route for ${req.method} ${path}`);
      return;
    }
    const raw = await this.readBody(req);
    if (raw === undefined) {
      this.sendError(res, 413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.');
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      this.sendError(res, 400, 'invalid_request_error', 'The request body is not valid JSON.');
      return;
    }
    if (path === '/v1/messages/count_tokens') this.countTokens(body, res);
    else await this.messages(body, res, situationHeader(req));
  }

  private countTokens(body: unknown, res: ServerResponse): void {
    const parsed = countTokensRequestSchema.safeParse(body);
    if (!parsed.success) {
      this.sendError(res, 400, 'invalid_request_error', describeIssues(parsed.error));
      return;
    }
    const segments = requestSegments(parsed.data as Parameters<typeof requestSegments>[0]);
    this.sendJson(res, 200, { input_tokens: Math.max(1, segments.reduce((s, x) => s + x.tokens, 0)) });
  }

  private async messages(body: unknown, res: ServerResponse, situation?: string): Promise<void> {
    const parsed = messagesRequestSchema.safeParse(body);
    if (!parsed.success) {
      this.sendError(res, 400, 'invalid_request_error', describeIssues(parsed.error));
      return;
    }
    const request = parsed.data;
    this.lastRequest = request;
    const segments = requestSegments(request);
    const cacheProblem = cacheControlProblem(segments);
    if (cacheProblem) {
      this.sendError(res, 400, 'invalid_request_error', cacheProblem);
      return;
    }

    const fault = this.faults.shift();
    if (fault && 'delayMs' in fault) {
      await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
      if (res.destroyed || res.writableEnded) return;
    } else if (fault) {
      this.sendError(res, fault.status, fault.type, fault.message ?? defaultMessage(fault.type), fault.retryAfterMs);
      return;
    }

    const ctx = readContext(request);
    if (situation) ctx.situation = situation;
    const scenario = selectScenario(this.options.scenarios, ctx.persona, ctx.situation, ctx.firstUserText);
    if (!scenario) {
      this.sendError(
        res,
        400,
        'invalid_request_error',
        `${SIMULATED_LABEL} ${ErrorCodes.simulatorNoScenario}: no scenario for persona "${ctx.persona}" ` +
          `situation "${ctx.situation}" and no "default" scenario`,
      );
      return;
    }
    const picked = pickReply(scenario, ctx);
    res.setHeader('x-headspace-scenario', scenario.id);
    res.setHeader('x-headspace-scenario-step', picked.source);

    const scripted = picked.reply.error;
    if (scripted) {
      const key = sha256(`${scenario.id}:${picked.source}:${requestHash(request)}`);
      const seen = this.attempts.get(key) ?? 0;
      if (seen < scripted.times) {
        this.attempts.set(key, seen + 1);
        this.sendError(
          res,
          scripted.status,
          scripted.type,
          scripted.message ?? defaultMessage(scripted.type),
          scripted.retry_after_ms,
        );
        return;
      }
    }

    const cacheUsage = this.cache.apply(request.model, segments);
    const message = buildMessage(request, picked, ctx, cacheUsage);
    const latency = this.options.latency;
    const wait = (ms: number) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());
    if (request.stream) {
      if (latency) await wait(latency.firstTokenMs);
      if (res.destroyed) return;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      const [start, ...rest] = streamEvents(message);
      res.write(formatSse(start));
      if (latency) await wait(generationMs(latency, message.usage.output_tokens));
      if (res.destroyed) return;
      for (const e of rest) res.write(formatSse(e));
      res.end();
      return;
    }
    if (latency) await wait(latency.firstTokenMs + generationMs(latency, message.usage.output_tokens));
    if (res.destroyed) return;
    this.sendJson(res, 200, message);
  }

  private async batchRoute(req: IncomingMessage, res: ServerResponse, route: NonNullable<ReturnType<typeof matchBatchRoute>>): Promise<void> {
    const baseURL = `http://${req.headers.host ?? '127.0.0.1'}`;
    try {
      switch (route.op) {
        case 'create': {
          const raw = await this.readBody(req);
          if (raw === undefined) return this.sendError(res, 413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.');
          let body: unknown;
          try {
            body = JSON.parse(raw);
          } catch {
            return this.sendError(res, 400, 'invalid_request_error', 'The request body is not valid JSON.');
          }
          return this.sendJson(res, 200, this.batches.create(body, baseURL));
        }
        case 'list':
          return this.sendJson(res, 200, this.batches.list(new URL(req.url ?? '/', baseURL).searchParams, baseURL));
        case 'retrieve':
          return this.sendJson(res, 200, this.batches.retrieve(route.id!, baseURL));
        case 'cancel':
          return this.sendJson(res, 200, this.batches.cancel(route.id!, baseURL));
        case 'delete':
          return this.sendJson(res, 200, this.batches.delete(route.id!));
        case 'results': {
          const text = this.batches.results(route.id!);
          res.writeHead(200, { 'content-type': 'application/binary', 'content-length': Buffer.byteLength(text) });
          res.end(text);
          return;
        }
      }
    } catch (error) {
      if (error instanceof BatchApiError) return this.sendError(res, error.status, error.type, error.message);
      throw error;
    }
  }

  /** One request of a batch, answered by the engine as POST /v1/messages would, billed at the batch tier. */
  private batchAnswer(params: Record<string, unknown>): BatchResult {
    const invalid = (message: string): BatchResult => ({ type: 'errored', error: { type: 'error', error: { type: 'invalid_request_error', message } } });
    const parsed = messagesRequestSchema.safeParse(params);
    if (!parsed.success) return invalid(describeIssues(parsed.error));
    const request = parsed.data;
    if (request.stream) return invalid('stream: streaming is not supported in a batch');
    const segments = requestSegments(request);
    const cacheProblem = cacheControlProblem(segments);
    if (cacheProblem) return invalid(cacheProblem);
    const ctx = readContext(request);
    const scenario = selectScenario(this.options.scenarios, ctx.persona, ctx.situation, ctx.firstUserText);
    if (!scenario) return invalid(`${SIMULATED_LABEL} ${ErrorCodes.simulatorNoScenario}: no scenario for persona "${ctx.persona}" situation "${ctx.situation}"`);
    const picked = pickReply(scenario, ctx);
    const scripted = picked.reply.error;
    if (scripted) return { type: 'errored', error: { type: 'error', error: { type: scripted.type, message: scripted.message ?? defaultMessage(scripted.type) } } };
    const message = buildMessage(request, picked, ctx, this.cache.apply(request.model, segments));
    return { type: 'succeeded', message: { ...message, usage: { ...message.usage, service_tier: 'batch' } } };
  }

  private readBody(req: IncomingMessage): Promise<string | undefined> {
    const limit = this.options.maxBodyBytes ?? 32 * 1024 * 1024;
    return new Promise((resolve, reject) => {
      const parts: Buffer[] = [];
      let size = 0;
      let tooLarge = false;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) tooLarge = true;
        else parts.push(chunk);
      });
      req.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(parts).toString('utf8')));
      req.on('error', reject);
    });
  }

  private sendJson(res: ServerResponse, status: number, body: unknown): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }

  private sendError(res: ServerResponse, status: number, type: string, message: string, retryAfterMs?: number): void {
    if (status === 429 || status === 529 || status >= 500) {
      const ms = retryAfterMs ?? this.options.retryAfterMs ?? 20;
      res.setHeader('retry-after-ms', String(ms));
      res.setHeader('retry-after', String(Math.max(1, Math.ceil(ms / 1000))));
    }
    this.sendJson(res, status, { type: 'error', error: { type, message }, request_id: res.getHeader('request-id') });
  }
}

/**
 * A runner that cannot write `Situation:` into the system prompt (the Claude Code CLI owns it) names
 * the situation in this header instead (ANTHROPIC_CUSTOM_HEADERS); it wins over the prompt line.
 */
export const SITUATION_HEADER = 'x-headspace-situation';

function situationHeader(req: IncomingMessage): string | undefined {
  const value = req.headers[SITUATION_HEADER];
  const text = (Array.isArray(value) ? value[0] : value)?.trim().toLowerCase();
  return text && /^[a-z0-9][a-z0-9._-]*$/.test(text) ? text : undefined;
}

function defaultMessage(type: string): string {
  switch (type) {
    case 'overloaded_error':
      return `${SIMULATED_LABEL} Overloaded`;
    case 'rate_limit_error':
      return `${SIMULATED_LABEL} Number of request tokens has exceeded your per-minute rate limit`;
    default:
      return `${SIMULATED_LABEL} ${type}`;
  }
}

export interface RunningSimulator {
  /** Base URL to pass as the SDK's baseURL, e.g. http://127.0.0.1:4010 */
  url: string;
  port: number;
  handler: SimulatorHandler;
  server: Server;
  close(): Promise<void>;
}

/** Listens on host:port (port 0 = any free port). */
export async function listenSimulator(
  options: SimulatorOptions & { port?: number; host?: string },
): Promise<RunningSimulator> {
  const handler = new SimulatorHandler(options);
  const server = createServer(handler.handle);
  server.keepAliveTimeout = 5_000;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    handler,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
