import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { appendFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createFixtureMcpServer } from './fixture-mcp-server';

/**
 * The fixture as a stdio MCP server: `node -r @swc-node/register fixture-mcp-stdio.ts`. Each call
 * is appended as a JSON line (with the names of its environment variables) to `$FIXTURE_CALLS_FILE` (default `mcp-calls.jsonl` in its working
 * directory); `$FIXTURE_EXTRA_TOOLS` adds numbered tools.
 */
export const FIXTURE_MCP_STDIO_SCRIPT = resolve(__dirname, 'fixture-mcp-stdio.ts');

async function main(): Promise<void> {
  const file = process.env.FIXTURE_CALLS_FILE ?? join(process.cwd(), 'mcp-calls.jsonl');
  const server = createFixtureMcpServer({
    extraTools: Number(process.env.FIXTURE_EXTRA_TOOLS ?? 0),
    record: (call) => appendFileSync(file, `${JSON.stringify({ ...call, envNames: Object.keys(process.env).sort() })}\n`),
  });
  await server.connect(new StdioServerTransport());
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`fixture MCP server failed: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
