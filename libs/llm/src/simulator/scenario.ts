import { readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

const regex = z.string().min(1).refine(
  (source) => {
    try {
      new RegExp(source, 'i');
      return true;
    } catch {
      return false;
    }
  },
  { message: 'not a valid regular expression' },
);

const toolUseSchema = z.strictObject({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,128}$/, 'tool name must match ^[a-zA-Z0-9_-]{1,128}$'),
  input: z.record(z.string(), z.unknown()).default({}),
});

const usageSchema = z.strictObject({
  input_tokens: z.number().int().nonnegative().optional(),
  output_tokens: z.number().int().nonnegative().optional(),
  cache_creation_input_tokens: z.number().int().nonnegative().optional(),
  cache_read_input_tokens: z.number().int().nonnegative().optional(),
});

const errorSchema = z.strictObject({
  status: z.number().int().min(400).max(599),
  type: z.enum([
    'invalid_request_error',
    'authentication_error',
    'permission_error',
    'not_found_error',
    'request_too_large',
    'rate_limit_error',
    'api_error',
    'overloaded_error',
  ]),
  message: z.string().optional(),
  /** How many times this exact request fails before it succeeds (default 1). */
  times: z.number().int().positive().default(1),
  retry_after_ms: z.number().int().nonnegative().optional(),
});

const replyShape = {
  thinking: z.string().optional(),
  text: z.string().optional(),
  tool_use: z.array(toolUseSchema).optional(),
  /** The reply's answer as JSON: sent as a `StructuredOutput` tool call when the request offers that tool. */
  structured: z.record(z.string(), z.unknown()).optional(),
  stop_reason: z.enum(['end_turn', 'tool_use', 'max_tokens', 'stop_sequence', 'pause_turn', 'refusal']).optional(),
  usage: usageSchema.optional(),
  error: errorSchema.optional(),
};

const hasContent = (r: { thinking?: string; text?: string; tool_use?: unknown[] }) =>
  r.text !== undefined || r.thinking !== undefined || (r.tool_use?.length ?? 0) > 0;
/** `error` alone is not a reply: the step fails `times` times, then answers with its content. */
const contentMessage = { message: 'a reply needs at least one of text, thinking or tool_use' };

const branchSchema = z
  .strictObject({
    ...replyShape,
    /** Regex (case-insensitive) on the text of the last user message's tool_result blocks. */
    tool_result: regex.optional(),
    /** Matches when the last tool_result was (true) or was not (false) flagged is_error. */
    tool_error: z.boolean().optional(),
    /** Regex (case-insensitive) on the text blocks of the last user message. */
    user_text: regex.optional(),
    /** Regex (case-insensitive) on the system prompt: a script that behaves as the model would with or without what the prompt holds (e.g. a learning). */
    system_text: regex.optional(),
  })
  .refine(hasContent, contentMessage)
  .refine((b) => b.tool_result !== undefined || b.tool_error !== undefined || b.user_text !== undefined || b.system_text !== undefined, {
    message: 'a branch needs a condition: tool_result, tool_error, user_text or system_text',
  });

const stepSchema = z
  .strictObject({ ...replyShape, when: z.array(branchSchema).optional() })
  .refine(hasContent, contentMessage);

const slug = z.string().regex(/^(\*|[a-z0-9][a-z0-9._-]*)$/, 'lower-case slug or "*"');

export const scenarioSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'lower-case slug'),
  description: z.string().optional(),
  persona: slug,
  situation: slug,
  /**
   * Regex (case-insensitive) on the conversation's first user message — the task it was given. A
   * scenario with one is chosen over an equally specific one without, and never when it fails.
   */
  prompt: regex.optional(),
  /** Checked before the step on every turn, e.g. a handoff request at any point. */
  interrupts: z.array(branchSchema).optional(),
  steps: z.array(stepSchema).min(1),
  /** Reply once the conversation has more assistant turns than steps. */
  exhausted: z.strictObject(replyShape).refine(hasContent, contentMessage).optional(),
});

export type Scenario = z.infer<typeof scenarioSchema>;
export type ScenarioStep = z.infer<typeof stepSchema>;
export type ScenarioBranch = z.infer<typeof branchSchema>;
export type ScenarioReply = Pick<ScenarioStep, keyof typeof replyShape>;

function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  return path.length === 0 ? '(root)' : path.map(String).join('.');
}

/** Validates one parsed scenario; errors name the file and the field. */
export function parseScenario(raw: unknown, file: string): Scenario {
  const parsed = scenarioSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => ({ field: fieldPath(i.path), message: i.message }));
  const first = issues[0];
  throw new HeadspaceError(
    ErrorCodes.simulatorScenarioInvalid,
    `scenario ${file}: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`,
    { field: first.field, details: { file, issues } },
  );
}

export function parseScenarioYaml(text: string, file: string): Scenario {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new HeadspaceError(
      ErrorCodes.simulatorScenarioInvalid,
      `scenario ${file}: not valid YAML: ${(error as Error).message}`,
      { field: '(root)', details: { file }, cause: error },
    );
  }
  return parseScenario(raw, file);
}

/**
 * Scenarios from several directories, the first winning: an extra directory (e.g. an example
 * project's own script) overrides a shipped scenario of the same id, and its scenarios are preferred
 * over equally specific shipped ones (`selectScenario` keeps this order on ties).
 */
export function loadScenarioDirs(dirs: readonly string[]): Scenario[] {
  const seen = new Set<string>();
  const all: Scenario[] = [];
  for (const dir of dirs) {
    for (const scenario of loadScenarios(dir)) {
      if (seen.has(scenario.id)) continue;
      seen.add(scenario.id);
      all.push(scenario);
    }
  }
  return all;
}

/** Loads every `*.yaml` / `*.yml` of a directory (sorted by name); ids must be unique. */
export function loadScenarios(dir: string): Scenario[] {
  const files = readdirSync(dir)
    .filter((f) => /\.ya?ml$/i.test(f))
    .sort();
  const byId = new Map<string, string>();
  const scenarios: Scenario[] = [];
  for (const f of files) {
    const scenario = parseScenarioYaml(readFileSync(join(dir, f), 'utf8'), basename(f));
    const other = byId.get(scenario.id);
    if (other) {
      throw new HeadspaceError(
        ErrorCodes.simulatorScenarioDuplicate,
        `scenario ${f}: id "${scenario.id}" is already used by ${other}`,
        { field: 'id', details: { file: f, other } },
      );
    }
    byId.set(scenario.id, f);
    scenarios.push(scenario);
  }
  return scenarios;
}
