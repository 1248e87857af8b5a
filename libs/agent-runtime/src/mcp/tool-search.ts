import { z } from 'zod';
import { defineTool, ok, type ToolDefinition } from '../tools/types';

export const TOOL_SEARCH = 'ToolSearch';

export interface SearchableTool {
  name: string;
  description: string;
}

const terms = (s: string) => s.toLowerCase().split(/[^a-z0-9]+/).filter((t) => t.length > 0);

/**
 * `select:a,b` picks tools by exact name; anything else is keywords, each scoring a tool twice
 * when in its name and once when in its description. Best first, ties in the given order.
 */
export function searchTools(tools: readonly SearchableTool[], query: string, max: number): SearchableTool[] {
  const select = /^\s*select:(.*)$/s.exec(query);
  if (select) {
    const wanted = new Set(select[1].split(',').map((n) => n.trim()).filter(Boolean));
    return tools.filter((t) => wanted.has(t.name)).slice(0, max);
  }
  const words = terms(query);
  return tools
    .map((tool, i) => {
      const name = tool.name.toLowerCase();
      const description = tool.description.toLowerCase();
      const score = words.reduce((sum, w) => sum + (name.includes(w) ? 2 : 0) + (description.includes(w) ? 1 : 0), 0);
      return { tool, i, score };
    })
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, max)
    .map((s) => s.tool);
}

const toolSearchInput = z.strictObject({
  query: z.string().min(1).max(1_000).describe('Keywords, or "select:<name>,<name>" for exact tool names.'),
  max_results: z.number().int().min(1).max(50).optional().describe('At most this many tools (default 5).'),
});

/**
 * Finds deferred tools (MCP tools not in the prompt because there are many) and loads the ones it
 * found: they are in the tool definitions from the next model call on.
 */
export function createToolSearchTool(find: (query: string, max: number) => SearchableTool[], count: number): ToolDefinition<z.output<typeof toolSearchInput>> {
  return defineTool({
    name: TOOL_SEARCH,
    description: `Searches ${count} more tools from MCP servers that are not loaded yet and loads the ones it finds, so you can call them from your next turn. Search by keywords, or with "select:<name>,<name>" when you know the names.`,
    schema: toolSearchInput,
    readOnly: true,
    alwaysAllowed: true,
    async execute(input) {
      const found = find(input.query, input.max_results ?? 5);
      if (found.length === 0) return ok(`No tool matches "${input.query}". Try other keywords.`);
      return ok([`Loaded ${found.length} tool(s); call them from your next turn:`, ...found.map((t) => `- ${t.name}: ${t.description.split('\n')[0]}`)].join('\n'));
    },
  });
}
