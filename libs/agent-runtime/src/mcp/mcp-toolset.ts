import type { AnyToolDefinition } from '../tools/types';
import type { McpToolDefinition } from './mcp-tool';
import { createToolSearchTool, searchTools } from './tool-search';

/** Above this many MCP tools, a session gets ToolSearch instead of all of them (HS_MCP_TOOL_SEARCH_THRESHOLD). */
export const DEFAULT_TOOL_SEARCH_THRESHOLD = 25;

/**
 * A session's MCP tools and which of them the model is shown. At or below the threshold: all of
 * them, always. Above it: none at first, only ToolSearch; each search loads what it found, and
 * loaded tools stay, appended in the order found, so the definitions only ever grow at the end
 * (the cached prompt prefix before them stays valid).
 */
export class McpToolset {
  readonly deferred: boolean;
  private readonly loaded: string[] = [];
  private readonly byName: ReadonlyMap<string, McpToolDefinition>;
  /** Tools beyond the MCP ones, e.g. ToolSearch; registered beside the MCP tools. */
  readonly extraTools: AnyToolDefinition[];

  /** `tools`: only those the persona may use, so the count and every search leave the others out. */
  constructor(
    readonly tools: readonly McpToolDefinition[],
    threshold: number,
  ) {
    this.deferred = tools.length > threshold;
    this.byName = new Map(tools.map((t) => [t.name, t]));
    this.extraTools = this.deferred ? [createToolSearchTool((q, max) => this.search(q, max), tools.length)] : [];
  }

  private search(query: string, max: number) {
    const found = searchTools(this.tools, query, max);
    for (const t of found) if (!this.loaded.includes(t.name)) this.loaded.push(t.name);
    return found;
  }

  /** May the model call this MCP tool now? Not yet when it is deferred and not loaded. */
  isOffered(name: string): boolean {
    return this.byName.has(name) && (!this.deferred || this.loaded.includes(name));
  }

  /** The MCP tools to put in the request's tools, in a stable order. */
  offered(): McpToolDefinition[] {
    if (!this.deferred) return [...this.tools];
    return this.loaded.map((n) => this.byName.get(n) as McpToolDefinition);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }
}
