import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { checkToolCall, hookDecisions, isBlockingDenial, type ClaudeDenial, type ClaudeHookEndpoint, type HookEngine, type HookSession, type ToolCallPolicy } from '@headspace/agent-runtime';
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { claudeHookOutput, enginePayload, isEngineEvent } from './claude-hook-output';

/** What one Claude Code session's hook calls run against. */
export interface HookEndpointSession {
  /** The session's engine, built as a built-in session's (createSessionHookEngine). */
  engine: HookEngine;
  /** The Headspace session the hooks see (its id and workspace, not the CLI's). */
  session: HookSession;
  /** The PreToolUse checks of the session's generated settings, decided here before the team's hooks. */
  policy: ToolCallPolicy;
  /** Before any check of a tool call: a reason when the session is stopping (the CLI then stops before the tool runs). */
  halt?: (toolUseId: string | undefined) => Promise<string | undefined>;
}

export type HookDecision = { event: string; decision: string; reason?: string };

/** One session's door: the CLI's settings get url and token; closed when the CLI invocation ends. */
export interface OpenHookEndpoint extends ClaudeHookEndpoint {
  /** The hook decisions on one tool call, for its `tool-called` event. */
  hooksOf(toolUseId: string): HookDecision[];
  close(): void;
}

interface Registered extends HookEndpointSession {
  tokenDigest: Buffer;
  denials: ClaudeDenial[];
  decisions: Map<string, HookDecision[]>;
}

export const HOOK_UNAUTHORIZED = 'HOOK.ENDPOINT_UNAUTHORIZED';
const MAX_BODY = 1024 * 1024;
const digest = (token: string) => createHash('sha256').update(token).digest();

/**
 * Headspace's hook engine for Claude Code sessions, over HTTP on 127.0.0.1 (an ephemeral port,
 * opened with the first session): the CLI's HTTP hooks POST each event to `/hooks/<id>` with the
 * session's bearer token; the answer is Claude Code's hook output JSON. A wrong token or an unknown
 * id is a 401 — the CLI's `onFailure: block` then stops the guarded action, as when this is down.
 */
@Injectable()
export class ClaudeHookEndpointService implements OnApplicationShutdown {
  private readonly logger = new Logger('ClaudeHookEndpoint');
  private readonly sessions = new Map<string, Registered>();
  private listening?: Promise<{ server: Server; base: string }>;

  async open(s: HookEndpointSession): Promise<OpenHookEndpoint> {
    const { base } = await this.listen();
    const id = randomUUID();
    const token = randomBytes(32).toString('base64url');
    const registered: Registered = { ...s, tokenDigest: digest(token), denials: [], decisions: new Map() };
    this.sessions.set(id, registered);
    return {
      url: `${base}/hooks/${id}`,
      token,
      denials: () => [...registered.denials],
      hooksOf: (toolUseId) => registered.decisions.get(toolUseId) ?? [],
      close: () => void this.sessions.delete(id),
    };
  }

  async onApplicationShutdown(): Promise<void> {
    const listening = this.listening;
    this.listening = undefined;
    if (!listening) return;
    const { server } = await listening;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private listen(): Promise<{ server: Server; base: string }> {
    this.listening ??= new Promise((resolve, reject) => {
      const server = createServer((req, res) => void this.handle(req, res));
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
    });
    return this.listening;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const id = /^\/hooks\/([0-9a-f-]{36})$/.exec(req.url ?? '')?.[1];
    if (req.method !== 'POST' || id === undefined) return send(404, { error: { code: 'NOT_FOUND', message: 'POST /hooks/<id>' } });
    const registered = this.sessions.get(id);
    const presented = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!registered || presented === undefined || !timingSafeEqual(digest(presented), registered.tokenDigest)) {
      req.resume();
      return send(401, { error: { code: HOOK_UNAUTHORIZED, message: 'unknown session or wrong token' } });
    }
    let input: Record<string, unknown>;
    try {
      input = JSON.parse(await readBody(req)) as Record<string, unknown>;
      if (!input || typeof input !== 'object' || Array.isArray(input)) throw new Error('not a JSON object');
    } catch (error) {
      return send(400, { error: { code: 'VALIDATION', field: 'body', message: `the hook input must be a JSON object: ${(error as Error).message}` } });
    }
    try {
      send(200, await this.answer(registered, input));
    } catch (error) {
      this.logger.warn(`a ${String(input.hook_event_name)} hook of session ${registered.session.sessionId} failed: ${(error as Error).message}`);
      if (input.hook_event_name === 'PreToolUse') this.deny(registered, input, `Headspace hook engine failed (${(error as Error).message}): tool call denied`);
      send(500, { error: { code: 'HOOK.FAILED', message: (error as Error).message } });
    }
  }

  private async answer(r: Registered, input: Record<string, unknown>): Promise<Record<string, unknown>> {
    const event = input.hook_event_name;
    if (!isEngineEvent(event)) return {};
    if (event === 'PreToolUse') {
      const halted = await r.halt?.(typeof input.tool_use_id === 'string' ? input.tool_use_id : undefined);
      if (halted) return { continue: false, stopReason: halted, hookSpecificOutput: { hookEventName: event, permissionDecision: 'deny', permissionDecisionReason: halted } };
      const reason = checkToolCall(r.policy, input);
      if (reason) {
        this.deny(r, input, reason);
        return { hookSpecificOutput: { hookEventName: event, permissionDecision: 'deny', permissionDecisionReason: reason } };
      }
    }
    const result = await r.engine.run(event, enginePayload(event, input), r.session);
    const toolUseId = typeof input.tool_use_id === 'string' ? input.tool_use_id : undefined;
    if (toolUseId && result.outcomes.length > 0) r.decisions.set(toolUseId, [...(r.decisions.get(toolUseId) ?? []), ...hookDecisions(result.outcomes)]);
    if (event === 'PreToolUse' && (result.decision === 'deny' || result.decision === 'ask')) this.deny(r, input, result.reason ?? 'denied by a Headspace hook', false);
    return claudeHookOutput(event, result);
  }

  private deny(r: Registered, input: Record<string, unknown>, reason: string, decide = true): void {
    const toolName = typeof input.tool_name === 'string' ? input.tool_name : 'unknown';
    const toolUseId = typeof input.tool_use_id === 'string' ? input.tool_use_id : undefined;
    const toolInput = input.tool_input && typeof input.tool_input === 'object' ? (input.tool_input as Record<string, unknown>) : undefined;
    r.denials.push({ source: 'hook', toolName, ...(toolUseId ? { toolUseId } : {}), ...(toolInput ? { toolInput } : {}), reason, blocking: isBlockingDenial(toolName) });
    if (decide && toolUseId) r.decisions.set(toolUseId, [...(r.decisions.get(toolUseId) ?? []), { event: 'PreToolUse', decision: 'deny', reason }]);
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error(`larger than ${MAX_BODY} bytes`));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
