import { parse as parseYaml, YAMLParseError } from 'yaml';
import { agentDefinitionFrontmatterSchema, ErrorCodes, HeadspaceError, type AgentDefinitionFrontmatter } from '@headspace/contracts';
import type { z } from 'zod';

/** Where a definition came from, highest precedence first (seed 003 Requirement 8.5 plus `managed`). */
export const AGENT_SCOPES = ['managed', 'project', 'user', 'plugin', 'cli', 'built-in'] as const;
export type AgentScope = (typeof AGENT_SCOPES)[number];

export interface AgentDefinition extends AgentDefinitionFrontmatter {
  /** Registry key: `name`, or `plugin-name:name` for plugin agents. */
  key: string;
  /** The markdown body: the agent's system prompt. */
  systemPrompt: string;
  scope: AgentScope;
  /** File path, or `cli:<index>` / `built-in:<name>`. */
  source: string;
  plugin?: string;
  /** The raw file text (anti-pattern checks scan it for secrets). */
  raw: string;
}

export class AgentDefinitionError extends HeadspaceError {
  constructor(readonly source: string, field: string, message: string, issues?: Array<{ field: string; message: string }>) {
    super(ErrorCodes.agentDefinitionInvalid, `Invalid agent definition ${source}: ${field}: ${message}`, {
      field,
      details: { file: source, issues: issues ?? [{ field, message }] },
    });
  }
}

function firstIssue(error: z.ZodError): Array<{ field: string; message: string }> {
  return error.issues.map((issue) => {
    const keys = (issue as { keys?: string[] }).keys;
    const path = issue.path.map(String).join('.');
    const field = issue.code === 'unrecognized_keys' && keys?.length ? [path, keys[0]].filter(Boolean).join('.') : path || '(frontmatter)';
    const message = issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message;
    return { field, message };
  });
}

/** Validate a frontmatter object (required, type and enum checks); errors name the field and the source. */
export function validateAgentFrontmatter(value: unknown, source: string): AgentDefinitionFrontmatter {
  const result = agentDefinitionFrontmatterSchema.safeParse(value);
  if (!result.success) {
    const issues = firstIssue(result.error);
    throw new AgentDefinitionError(source, issues[0].field, issues[0].message, issues);
  }
  return result.data;
}

/** Split `---\n<yaml>\n---\n<body>`; the body is the system prompt. */
export function splitFrontmatter(text: string, source: string): { frontmatter: unknown; body: string } {
  const normalised = text.replace(/^\uFEFF/, '');
  const m = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/.exec(normalised);
  if (!m) throw new AgentDefinitionError(source, '(frontmatter)', 'file must start with YAML frontmatter between --- lines');
  let frontmatter: unknown;
  try {
    frontmatter = parseYaml(m[1]);
  } catch (err) {
    const msg = err instanceof YAMLParseError ? err.message.split('\n')[0] : String(err);
    throw new AgentDefinitionError(source, '(frontmatter)', `YAML does not parse: ${msg}`);
  }
  if (frontmatter === null || typeof frontmatter !== 'object' || Array.isArray(frontmatter)) {
    throw new AgentDefinitionError(source, '(frontmatter)', 'frontmatter must be a YAML mapping');
  }
  return { frontmatter, body: m[2] };
}

export function parseAgentDefinition(text: string, opts: { source: string; scope: AgentScope; plugin?: string }): AgentDefinition {
  const { frontmatter, body } = splitFrontmatter(text, opts.source);
  const fm = validateAgentFrontmatter(frontmatter, opts.source);
  return {
    ...fm,
    key: opts.plugin ? `${opts.plugin}:${fm.name}` : fm.name,
    systemPrompt: body.trim(),
    scope: opts.scope,
    source: opts.source,
    plugin: opts.plugin,
    raw: text,
  };
}

/** CLI inline agents (`--agents` JSON): an object `{ name: {description, prompt, …} }` or an array of frontmatter objects with `prompt`. */
export function parseInlineAgents(json: string | unknown): AgentDefinition[] {
  const value = typeof json === 'string' ? (JSON.parse(json) as unknown) : json;
  const list: Array<Record<string, unknown>> = Array.isArray(value)
    ? (value as Array<Record<string, unknown>>)
    : Object.entries((value ?? {}) as Record<string, Record<string, unknown>>).map(([name, v]) => ({ name, ...v }));
  return list.map((entry, i) => {
    const source = `cli:${i}`;
    const { prompt, ...fm } = entry;
    const parsed = validateAgentFrontmatter(fm, source);
    return { ...parsed, key: parsed.name, systemPrompt: typeof prompt === 'string' ? prompt.trim() : '', scope: 'cli' as const, source, raw: JSON.stringify(entry) };
  });
}
