import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApiReply } from './headspace-api';

interface ProblemLike {
  status?: unknown;
  code?: unknown;
  detail?: unknown;
  title?: unknown;
  field?: unknown;
  issues?: unknown;
}

const text = (value: string, isError = false): CallToolResult => ({ content: [{ type: 'text', text: value }], ...(isError ? { isError: true } : {}) });

/**
 * A REST answer as an MCP tool result. A refusal (4xx, 5xx) is a result with `isError: true`, not a
 * protocol error: the model reads the problem's code and detail and can correct its call.
 */
export function toToolResult(reply: ApiReply): CallToolResult {
  if (reply.status >= 200 && reply.status < 300) return text(reply.json === undefined ? '{}' : JSON.stringify(reply.json, null, 2));
  return text(describeProblem(reply), true);
}

/** `403 AUTH.FORBIDDEN: This operation needs the operator role; …` plus the field and issues when given. */
export function describeProblem(reply: ApiReply): string {
  const problem: ProblemLike = reply.json !== null && typeof reply.json === 'object' ? (reply.json as ProblemLike) : {};
  const code = typeof problem.code === 'string' ? problem.code : `HTTP.${reply.status}`;
  const detail = typeof problem.detail === 'string' ? problem.detail : typeof problem.title === 'string' ? problem.title : 'no detail given';
  const lines = [`Headspace refused the call: ${reply.status} ${code}: ${detail}`];
  if (typeof problem.field === 'string') lines.push(`field: ${problem.field}`);
  if (Array.isArray(problem.issues) && problem.issues.length) lines.push(`issues: ${JSON.stringify(problem.issues)}`);
  return lines.join('\n');
}

/** The REST API could not be reached (connection refused, timeout): still a tool result, never a crash. */
export function unreachableResult(error: unknown): CallToolResult {
  return text(`Headspace could not be reached: ${error instanceof Error ? error.message : String(error)}`, true);
}
