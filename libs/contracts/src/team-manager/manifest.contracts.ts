import { z } from 'zod';
import { defineCommand, defineEvent, defineQuery } from '../messages';
import { agentRuntimeSchema } from '../orchestrator/runtime.contracts';
import { teamNameSchema } from './team.contracts';

/**
 * The team manifest (`team.yaml`, seed 001 "Team Manifest"): required `team`, `description`,
 * `members` (each with `name`, `role`, `tools`, `owns`); optional `defaults.model` (sonnet),
 * `defaults.budget` (0.50 USD), `defaults.permission-mode` (dontAsk) and per-member overrides.
 * `tools` patterns (`Bash(git:*)`) and `owns` globs are data here; the agent runtime enforces them.
 * Unknown keys are refused (a typo such as `permision-mode` must not silently fall back to a default).
 */

const oneLine = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[^\r\n]*$/, 'must be one line');

export const permissionModes = ['default', 'acceptEdits', 'plan', 'bypassPermissions', 'dontAsk'] as const;
export const permissionModeSchema = z.enum(permissionModes);

/** A model alias (`sonnet`, `opus`, `haiku`) or a full model id (`claude-sonnet-4-6`). */
export const manifestModelSchema = z
  .string()
  .max(100)
  .regex(/^[a-z0-9][a-z0-9._\-[\]]*$/, 'must be a model alias or id (lowercase letters, digits, dots, dashes)');

/** USD, as `--max-budget-usd` takes it. */
export const manifestBudgetSchema = z.number().positive().max(10_000);

/** A tool for `--allowedTools`: `Read`, `mcp__memory__search`, all of a server's tools `mcp__memory__*`, or a tool with a specifier such as `Bash(git:*)`. */
export const manifestToolSchema = z
  .string()
  .max(200)
  .regex(/^(?:[A-Z][A-Za-z0-9]*|mcp__[A-Za-z0-9_*-]+)(?:\([^()\r\n]+\))?$/, 'must be a tool name with an optional specifier, like Read, "mcp__server__*" or "Bash(git:*)"');

/** A workspace-relative glob (`src/core/**`, `*.md`): no absolute paths, no `..` segments. */
export const ownsGlobSchema = z
  .string()
  .min(1)
  .max(300)
  .regex(/^[^\r\n\0]*$/, 'must be one line')
  .refine((glob) => !glob.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(glob), 'must be relative to the workspace')
  .refine((glob) => !glob.split(/[\\/]/).includes('..'), 'must not leave the workspace (..)');

export const manifestMemberNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,63}$/, 'must be a lowercase identifier of 1-64 letters, digits or dashes');

export const manifestMemberSchema = z.strictObject({
  name: manifestMemberNameSchema,
  role: oneLine(500),
  model: manifestModelSchema.optional(),
  budget: manifestBudgetSchema.optional(),
  'permission-mode': permissionModeSchema.optional(),
  /** What runs this member's sessions (built-in or claude-code); none: `defaults.runtime`, else the persona's. */
  runtime: agentRuntimeSchema.optional(),
  tools: z.array(manifestToolSchema).max(100),
  owns: z.array(ownsGlobSchema).max(100),
});

export const MANIFEST_DEFAULTS = { model: 'sonnet', budget: 0.5, 'permission-mode': 'dontAsk' } as const;

export const manifestDefaultsSchema = z.strictObject({
  model: manifestModelSchema.default(MANIFEST_DEFAULTS.model),
  budget: manifestBudgetSchema.default(MANIFEST_DEFAULTS.budget),
  'permission-mode': permissionModeSchema.default(MANIFEST_DEFAULTS['permission-mode']),
  /** The team's runtime for members that name none; none: each persona's default. */
  runtime: agentRuntimeSchema.optional(),
});

export const teamManifestSchema = z
  .strictObject({
    team: teamNameSchema,
    description: oneLine(500),
    defaults: manifestDefaultsSchema.default({ ...MANIFEST_DEFAULTS }),
    members: z.array(manifestMemberSchema).min(1).max(50),
  })
  .superRefine((manifest, ctx) => {
    const seen = new Set<string>();
    manifest.members.forEach((member, i) => {
      if (seen.has(member.name)) ctx.addIssue({ code: 'custom', path: ['members', i, 'name'], message: `duplicate member name "${member.name}"` });
      seen.add(member.name);
      member.tools.forEach((tool, j) => {
        if (member.tools.indexOf(tool) !== j) ctx.addIssue({ code: 'custom', path: ['members', i, 'tools', j], message: `duplicate tool "${tool}"` });
      });
    });
  });

/** A manifest as stored: defaults filled in, member overrides only where the file gave them. */
export type TeamManifest = z.output<typeof teamManifestSchema>;

/** A member with the defaults applied: what the spawn protocol passes to the agent. */
export const resolvedMemberSchema = z.object({
  name: z.string(),
  role: z.string(),
  model: z.string(),
  budget: z.number(),
  permissionMode: permissionModeSchema,
  /** The member's or the manifest defaults' runtime; none: the persona's default decides. */
  runtime: agentRuntimeSchema.optional(),
  tools: z.array(z.string()),
  owns: z.array(z.string()),
});

export const manifestStreamId = (team: string) => `manifest-${team}`;

export const manifestImported = defineEvent({
  service: 'team-manager',
  category: 'manifest',
  name: 'imported',
  schema: z.object({ team: teamNameSchema, manifest: teamManifestSchema, importedAt: z.iso.datetime() }),
});

export const manifestEvents = [manifestImported];

export const importManifest = defineCommand({
  service: 'team-manager',
  name: 'import-manifest',
  request: z.object({ yaml: z.string().min(1).max(256_000) }),
  response: z.object({
    team: z.string(),
    /** False when the manifest equals the current one (nothing appended). */
    changed: z.boolean(),
    manifest: teamManifestSchema,
    members: z.array(resolvedMemberSchema),
    streamVersion: z.string(),
  }),
});

export const exportManifest = defineQuery({
  service: 'team-manager',
  name: 'export-manifest',
  request: z.object({ team: teamNameSchema }),
  response: z.object({ team: z.string(), yaml: z.string(), manifest: teamManifestSchema, members: z.array(resolvedMemberSchema) }),
});
