import { Module } from '@nestjs/common';
import { McpController } from './mcp.controller';

/** Headspace as an MCP server over Streamable HTTP (`/mcp`); the tools live in libs/mcp-server. */
@Module({ controllers: [McpController] })
export class McpModule {}
