import { describe, expect, it } from 'vitest';
import type { McpToolDefinition } from './mcp-tool';
import { McpToolset } from './mcp-toolset';
import { searchTools, TOOL_SEARCH } from './tool-search';

const tool = (name: string, description: string): McpToolDefinition =>
  ({ name, description, server: 'fx', mcpName: name, inputSchema: { type: 'object' } }) as unknown as McpToolDefinition;

const many = Array.from({ length: 30 }, (_, i) => tool(`mcp__fx__widget_${i}`, `Polishes widget number ${i} (${i % 2 === 0 ? 'brass' : 'steel'}).`));
const ctx = { workspaceRoot: '/ws', agentId: 'con', toolUseId: 't' };

describe('Tool Search', () => {
  it('ranks by keywords in name (twice) and description, and selects exact names', () => {
    const tools = [tool('mcp__gh__create_issue', 'Creates an issue.'), tool('mcp__gh__list_prs', 'Lists pull requests with an issue link.'), tool('mcp__db__query', 'Runs SQL.')];
    expect(searchTools(tools, 'issue', 5).map((t) => t.name)).toEqual(['mcp__gh__create_issue', 'mcp__gh__list_prs']);
    expect(searchTools(tools, 'select:mcp__db__query,nope', 5).map((t) => t.name)).toEqual(['mcp__db__query']);
    expect(searchTools(tools, 'kubernetes', 5)).toEqual([]);
  });

  it('at or below the threshold offers every MCP tool and no ToolSearch', () => {
    const set = new McpToolset(many.slice(0, 3), 3);
    expect(set.deferred).toBe(false);
    expect(set.extraTools).toEqual([]);
    expect(set.offered().map((t) => t.name)).toEqual(many.slice(0, 3).map((t) => t.name));
    expect(set.isOffered(many[2].name)).toBe(true);
  });

  it('above it offers only ToolSearch; what a search finds is offered from then on, appended in order', async () => {
    const set = new McpToolset(many, 25);
    expect(set.deferred).toBe(true);
    expect(set.extraTools.map((t) => t.name)).toEqual([TOOL_SEARCH]);
    expect(set.offered()).toEqual([]);
    expect(set.isOffered('mcp__fx__widget_7')).toBe(false);
    const search = set.extraTools[0];
    const found = await search.execute({ query: 'select:mcp__fx__widget_7' }, ctx);
    expect(found.content).toContain('mcp__fx__widget_7: Polishes widget number 7 (steel).');
    await search.execute({ query: 'brass', max_results: 2 }, ctx);
    expect(set.offered().map((t) => t.name)).toEqual(['mcp__fx__widget_7', 'mcp__fx__widget_0', 'mcp__fx__widget_2']);
    expect(set.isOffered('mcp__fx__widget_7')).toBe(true);
  });
});
