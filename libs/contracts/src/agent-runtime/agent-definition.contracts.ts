import { z } from 'zod';

/**
 * Frontmatter of a custom agent definition (seed 003 Requirement 8): a `.md` file whose YAML
 * frontmatter is this object and whose body is the system prompt. `effort` is a Headspace
 * extension (Requirement 12 levels).
 */
export const agentModelAliases = ['sonnet', 'opus', 'haiku', 'inherit'] as const;
export const agentPermissionModes = ['default', 'bypassPermissions', 'plan'] as const;
export const agentColors = ['purple', 'cyan', 'green', 'orange', 'blue', 'red'] as const;
export const agentHookEvents = [
  'SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PermissionRequest',
  'PreCompact', 'Notification', 'Stop', 'SubagentStop', 'SessionEnd', 'Setup',
] as const;
export const agentEffortLevels = ['quick', 'standard', 'deep'] as const;

/** "Read, Grep" or ["Read", "Grep"]: both become a trimmed, non-empty list. */
const commaList = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter((s) => s.length > 0));

export const agentDefinitionFrontmatterSchema = z
  .object({
    name: z.string().regex(/^[a-z][a-z0-9-]*$/, 'must be lowercase-with-hyphens (^[a-z][a-z0-9-]*$)').max(64),
    description: z.string().trim().min(1, 'is required').max(4_000),
    model: z.enum(agentModelAliases).default('inherit'),
    tools: commaList.optional(),
    disallowedTools: commaList.optional(),
    permissionMode: z.enum(agentPermissionModes).default('default'),
    color: z.enum(agentColors).optional(),
    maxTurns: z.number().int().positive().max(10_000).optional(),
    hooks: z.partialRecord(z.enum(agentHookEvents), z.array(z.record(z.string(), z.unknown()))).optional(),
    skills: commaList.optional(),
    mcpServers: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
    memory: z.string().max(20_000).optional(),
    effort: z.enum(agentEffortLevels).optional(),
  })
  .strict()
  .refine((d) => d.tools === undefined || d.disallowedTools === undefined, {
    message: 'tools and disallowedTools are mutually exclusive',
    path: ['disallowedTools'],
  });
export type AgentDefinitionFrontmatter = z.output<typeof agentDefinitionFrontmatterSchema>;
