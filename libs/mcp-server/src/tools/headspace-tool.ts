import type { z } from 'zod';
import type { ApiMethod } from '../headspace-api';

export interface ApiRequest {
  method: ApiMethod;
  path: string;
  body?: unknown;
  /** The caller's `idempotency_key` of a write tool, for the `Idempotency-Key` header. */
  idempotencyKey?: string;
}

/** One MCP tool: its schema for the model and the single REST call it stands for. */
export interface HeadspaceTool {
  name: string;
  title: string;
  /** Written for a model: what the tool does, when to use it, what it returns. */
  description: string;
  input: z.ZodRawShape;
  /** Reads only (REST GET): clients may call it without asking. */
  readOnly: boolean;
  request(args: Record<string, unknown>): ApiRequest;
}

/** Keeps the arguments typed by the tool's own schema while the list holds tools of any shape. */
export function defineTool<Shape extends z.ZodRawShape>(tool: Omit<HeadspaceTool, 'input' | 'request'> & {
  input: Shape;
  request(args: z.output<z.ZodObject<Shape>>): ApiRequest;
}): HeadspaceTool {
  return tool as unknown as HeadspaceTool;
}

/** `/api/v1/teams/{team}/…` with every path segment encoded: an argument can never climb the path. */
export function apiPath(strings: TemplateStringsArray, ...segments: string[]): string {
  return strings.reduce((path, part, i) => path + part + (i < segments.length ? encodeURIComponent(segments[i]) : ''), '');
}

/** Appends the defined values as a query string (booleans and numbers as REST reads them). */
export function withQuery(path: string, query: Record<string, string | number | boolean | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(key, String(value));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** Drops undefined fields so REST sees exactly what the model gave. */
export function defined(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
}
