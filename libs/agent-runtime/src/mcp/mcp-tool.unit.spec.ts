import { ErrorCodes } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { mcpResultText, mcpToolDefinition, mcpToolName } from './mcp-tool';

const ctx = { workspaceRoot: '/ws', agentId: 'con', toolUseId: 'tu1' };

describe('MCP tools as registry tools', () => {
  it('are named mcp__<server>__<tool>, with characters the API refuses replaced and the length capped', () => {
    expect(mcpToolName('fixture', 'echo')).toBe('mcp__fixture__echo');
    expect(mcpToolName('my.server', 'get/issue v2')).toBe('mcp__my_server__get_issue_v2');
    expect(mcpToolName('s', 'x'.repeat(300))).toHaveLength(128);
  });

  it('map text parts as they are and describe the others; structured content when there is no content', () => {
    expect(mcpResultText({ content: [{ type: 'text', text: 'a' }, { type: 'image', mimeType: 'image/png', data: '…' }, { type: 'resource', resource: { uri: 'file:///x', text: 'body' } }] })).toBe('a\n[image image/png]\nbody');
    expect(mcpResultText({ content: [], structuredContent: { sum: 3 } })).toBe('{"sum":3}');
    expect(mcpResultText({})).toBe('(no output)');
  });

  it('call the server with the tool name and input, keeping isError', async () => {
    const sent: unknown[] = [];
    const client = {
      callTool: async (params: { name: string; arguments?: Record<string, unknown> }) => {
        sent.push(params);
        return params.name === 'fail' ? { content: [{ type: 'text', text: 'nope' }], isError: true } : { content: [{ type: 'text', text: 'ok' }] };
      },
    };
    const schema = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
    const echo = mcpToolDefinition('fixture', { name: 'echo', description: 'Echoes.', inputSchema: schema }, client as never, 1_000);
    expect(echo).toMatchObject({ name: 'mcp__fixture__echo', server: 'fixture', mcpName: 'echo', description: 'Echoes.', inputSchema: schema });
    expect(await echo.execute({ text: 'hi' }, ctx)).toEqual({ content: 'ok', isError: false });
    const fail = mcpToolDefinition('fixture', { name: 'fail', inputSchema: { type: 'object' } }, client as never, 1_000);
    expect(await fail.execute({}, ctx)).toEqual({ content: 'nope', isError: true, code: ErrorCodes.mcpToolFailed });
    expect(sent).toEqual([{ name: 'echo', arguments: { text: 'hi' } }, { name: 'fail', arguments: {} }]);
  });
});
