import { Controller, Delete, Get, HttpException, HttpStatus, Post, Req, Res, SetMetadata } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { createHeadspaceMcpServer } from '@headspace/mcp-server';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiRoute } from '../routes/api-route';
import { API_ROUTE } from '../routes/registry.controller';
import { injectHeadspaceApi } from './inject-headspace-api';

/**
 * Any valid token may talk MCP (a viewer lists and reads); what each tool may do is decided again
 * by the REST route it calls, with the same token. No team here: the tools name theirs.
 */
const MCP_ACCESS: Pick<ApiRoute, 'role' | 'team'> = { role: 'viewer', team: 'none' };

/** Headers the transport reads; the caller's token stays out of the MCP layer. */
const FORWARDED_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'];

/**
 * Streamable HTTP at `/mcp` (MCP 2025-06-18), stateless: every POST gets a fresh server and
 * transport answering with plain JSON, so any replica can serve any request and nothing is held
 * between calls. Authentication (401 + WWW-Authenticate), rate limits, helmet and problem+json
 * are the gateway's as for every route; the answer goes out through Fastify's reply, not hijacked.
 */
@Controller('mcp')
export class McpController {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  @Post()
  @SetMetadata(API_ROUTE, MCP_ACCESS)
  async post(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const server = createHeadspaceMcpServer(injectHeadspaceApi(fastify, req), { version: process.env.HEADSPACE_VERSION });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(webRequest(req), { parsedBody: req.body });
      const body = await response.text();
      void reply.status(response.status);
      response.headers.forEach((value, name) => void reply.header(name, value));
      await reply.send(body === '' ? undefined : body);
    } finally {
      await server.close();
    }
  }

  /** No server-initiated stream and no sessions in stateless mode: the transport spec's 405. */
  @Get()
  @SetMetadata(API_ROUTE, MCP_ACCESS)
  get(@Res({ passthrough: true }) reply: FastifyReply): never {
    return methodNotAllowed(reply);
  }

  @Delete()
  @SetMetadata(API_ROUTE, MCP_ACCESS)
  remove(@Res({ passthrough: true }) reply: FastifyReply): never {
    return methodNotAllowed(reply);
  }
}

function methodNotAllowed(reply: FastifyReply): never {
  void reply.header('allow', 'POST');
  throw new HttpException('This MCP endpoint is stateless: POST JSON-RPC messages to it', HttpStatus.METHOD_NOT_ALLOWED);
}

function webRequest(req: FastifyRequest): Request {
  const headers = new Headers();
  for (const name of FORWARDED_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  return new Request(new URL(req.url, 'http://gateway.invalid'), { method: req.method, headers });
}
