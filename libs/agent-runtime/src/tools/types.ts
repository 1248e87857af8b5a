import type Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';
import type { Sandbox } from '../sandbox/sandbox-spawn';

/**
 * What a tool call hands back to the model. `content` is exactly what the model reads in the
 * `tool_result` block; refusals and failures are results too (`isError: true`), never throws.
 */
export interface ToolResult {
  content: string;
  isError: boolean;
  /** Stable error code (`TOOL.NOT_ALLOWED`, …) when the call was refused or failed. */
  code?: string;
  /** Workspace-relative (posix) paths this call created or changed. */
  filesModified?: string[];
}

/** Where and for whom a tool call runs. */
export interface ToolContext {
  /** Absolute path of the workspace (a git checkout). Every path a tool touches must resolve inside it. */
  workspaceRoot: string;
  /** The agent (session member) making the call; used for locks and team tools. */
  agentId: string;
  /** The `tool_use` block id of this call. */
  toolUseId: string;
  sessionId?: string;
  teamId?: string;
  /** Aborts a running tool (Bash kills its process group). */
  signal?: AbortSignal;
  /** Base environment for Bash, before secret scrubbing. Defaults to `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Bash (and every process it starts) runs inside this bubblewrap sandbox; none: unsandboxed (tests, trusted local use). */
  sandbox?: Sandbox;
}

/** The paths a call will read or write, declared so permission rules can judge it before it runs. */
export interface ToolAccess {
  reads?: string[];
  writes?: string[];
}

export interface ToolDefinition<I = unknown> {
  name: string;
  description: string;
  /** zod schema of the input; its JSON Schema is the tool's `input_schema`. */
  schema: z.ZodType<I>;
  /** Read-only tools (Read, Glob, Grep) may be given to agent hooks. */
  readOnly?: boolean;
  /** Team protocol tools are not subject to the manifest `tools` allowlist. */
  alwaysAllowed?: boolean;
  /** Paths the call touches (relative to the workspace or absolute), checked before execute. */
  access?(input: I): ToolAccess;
  execute(input: I, ctx: ToolContext): Promise<ToolResult>;
}

/** Any tool definition, whatever its input type. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyToolDefinition = ToolDefinition<any>;

/** Declares a tool with its input type inferred from its zod schema. */
export function defineTool<S extends z.ZodType>(def: Omit<ToolDefinition<z.output<S>>, 'schema'> & { schema: S }): ToolDefinition<z.output<S>> {
  return def as ToolDefinition<z.output<S>>;
}

/** The Anthropic `tools` entry of a tool: name, description and the JSON Schema of its input. */
export function toAnthropicTool(def: AnyToolDefinition): Anthropic.Tool {
  const json = z.toJSONSchema(def.schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return { name: def.name, description: def.description, input_schema: { ...json, type: 'object' } as Anthropic.Tool.InputSchema };
}

export const ok = (content: string, filesModified?: string[]): ToolResult =>
  filesModified && filesModified.length > 0 ? { content, isError: false, filesModified } : { content, isError: false };

export const fail = (code: string, content: string): ToolResult => ({ content, isError: true, code });

/** A `tool_use` block as the Messages API returns it. */
export interface ToolUseCall {
  id: string;
  name: string;
  input: unknown;
}

/** Turns a result into the `tool_result` block sent back to the model. */
export function toToolResultBlock(toolUseId: string, result: ToolResult): Anthropic.ToolResultBlockParam {
  return { type: 'tool_result', tool_use_id: toolUseId, content: result.content, ...(result.isError ? { is_error: true } : {}) };
}
