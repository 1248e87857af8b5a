import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import type { FastifyInstance } from 'fastify';
import { toProblem } from './problem-details.filter';

/** How long a socket answered with a client error may stay open for the client to read the answer. */
const CLOSE_GRACE_MS = 5_000;
const RETRY_AFTER_SECONDS = '2';

const clientErrorCodes: Record<string, string> = {
  HPE_HEADER_OVERFLOW: ErrorCodes.gatewayHeadersTooLarge,
  ERR_HTTP_REQUEST_TIMEOUT: ErrorCodes.gatewayClientTimeout,
};

function problemBody(code: string, message: string, instance?: string) {
  const problem = toProblem(new HeadspaceError(code, message), instance);
  return { status: problem.status, body: JSON.stringify(problem) };
}

/**
 * Node answers a request it cannot parse (headers over the limit, a malformed request line, a
 * client too slow) itself, through the server's `clientError` event: Fastify's handler writes plain
 * JSON and destroys the socket at once, and a socket closed with bytes of the request still unread
 * is reset, so the client may never see the answer. Here the answer is problem+json and the socket
 * is half-closed after it: the rest of the request is read and dropped until the client closes.
 */
export function answerClientErrorsAsProblems(server: Server): void {
  const answered = new WeakSet<Socket>();
  server.removeAllListeners('clientError');
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    // The failed parser reports every later chunk of the same connection again.
    if (answered.has(socket)) return;
    answered.add(socket);
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
    if (!socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const code = clientErrorCodes[error.code ?? ''] ?? ErrorCodes.gatewayBadRequest;
    const message = code === ErrorCodes.gatewayHeadersTooLarge ? 'The request headers are larger than the server accepts' : 'The request could not be read as HTTP';
    const { status, body } = problemBody(code, message);
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    socket.resume();
    setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
  });
}

/**
 * Once Fastify starts closing, requests still arriving on open keep-alive connections are answered
 * 503 by Fastify's router in plain JSON (its `return503OnClosing`, an option of the adapter created
 * in libs/platform). Answered here first instead, as problem+json with Retry-After. From the moment
 * shutdown begins, every answer says `Connection: close`, so clients stop reusing a connection the
 * server is about to close (a request sent on it as it closes would be reset, not answered).
 */
export function answerWhileClosingAsProblems(fastify: FastifyInstance, shuttingDown: () => boolean): void {
  let closing = false;
  // preClose runs in the same turn as Fastify marks itself closing, before the server stops.
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  fastify.addHook('onSend', async (_request, reply, payload) => {
    if (closing || shuttingDown()) void reply.header('Connection', 'close');
    return payload;
  });
  const server = fastify.server;
  const handlers = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!closing) {
      for (const handle of handlers) handle.call(server, req, res);
      return;
    }
    const { status, body } = problemBody(ErrorCodes.gatewayShuttingDown, 'The gateway is shutting down; retry on another instance or after a restart', req.url?.split('?', 1)[0]);
    res.writeHead(status, {
      'Content-Type': 'application/problem+json',
      'Content-Length': Buffer.byteLength(body),
      'Retry-After': RETRY_AFTER_SECONDS,
      Connection: 'close',
    });
    res.end(body);
  });
}
