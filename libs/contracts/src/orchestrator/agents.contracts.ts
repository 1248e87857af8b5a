import { z } from 'zod';
import { agentResultSchema } from '../agent-runtime/agent-result.contracts';
import { defineQuery } from '../messages';
import { manifestToolSchema } from '../team-manager/manifest.contracts';
import { teamNameSchema } from '../team-manager/team.contracts';
import { runSourceSchema } from './run-source';

/**
 * Custom agents (seed 003 Requirements 5, 8, 24): the `.md` definitions a project, the operator's
 * user directory and the shipped templates provide, as the orchestrator's registry sees them, and
 * the typed result a subagent hands back to the lead that delegated to it.
 */

export const agentDefinitionScopes = ['managed', 'project', 'user', 'plugin', 'cli', 'built-in'] as const;

/** A problem with one agent file, naming the file and the frontmatter field. */
export const agentFileIssueSchema = z.object({ file: z.string().max(4_096), field: z.string().max(200), message: z.string().max(2_000) });

export const agentWarningSchema = z.object({
  code: z.string().max(100),
  message: z.string().max(2_000),
  agent: z.string().max(200).optional(),
  source: z.string().max(4_096).optional(),
});

export const agentSummarySchema = z.object({
  name: z.string().max(200),
  scope: z.enum(agentDefinitionScopes),
  source: z.string().max(4_096),
  description: z.string().max(4_000),
  /** The model it runs on: a full model id, or `inherit` (the lead's). */
  model: z.string().max(200),
  /** Its allow-list (canonical names); absent: every tool the lead may use, minus `disallowedTools`. */
  tools: z.array(z.string().max(200)).optional(),
  disallowedTools: z.array(z.string().max(200)).optional(),
  maxTurns: z.number().int().positive().optional(),
  /** Definitions of the same name in lower-precedence locations, hidden by this one. */
  shadows: z.array(z.string().max(4_096)),
});

export const agentListingSchema = z.object({
  agents: z.array(agentSummarySchema),
  /** Files that do not load, with the field at fault; they never hide valid ones. */
  errors: z.array(agentFileIssueSchema),
  warnings: z.array(agentWarningSchema),
  /** Every definition hidden by a higher-precedence one of the same name. */
  shadowed: z.array(z.object({ name: z.string().max(200), source: z.string().max(4_096), by: z.string().max(4_096) })),
});

/** `hs.qry.orchestrator.list-agents`: the agents a session in this project would see (project > user > built-in). */
export const listAgents = defineQuery({
  service: 'orchestrator',
  name: 'list-agents',
  request: z.object({
    team: teamNameSchema,
    /** The project: a directory under HS_SOURCE_ROOTS (as for runs); absent: user and built-in agents only. */
    source: runSourceSchema.optional(),
  }),
  response: agentListingSchema,
});

/** `hs.qry.orchestrator.validate-agent`: one agent file's text checked as the registry would load it. */
export const validateAgent = defineQuery({
  service: 'orchestrator',
  name: 'validate-agent',
  request: z.object({
    /** Named in the issues; defaults to `agent.md`. */
    file: z.string().min(1).max(1_000).default('agent.md'),
    text: z.string().max(200_000),
  }),
  response: z.object({
    valid: z.boolean(),
    name: z.string().max(200).optional(),
    errors: z.array(agentFileIssueSchema),
    warnings: z.array(agentWarningSchema),
  }),
});

/**
 * What a lead reads as the result of an `agent__<name>` tool call: the child session's AgentResult
 * (summary, files, usage, cost, its session id) with the agent's name, the model it ran on and
 * whether it completed.
 */
export const subagentResultSchema = agentResultSchema.extend({
  agent: z.string().max(200),
  status: z.enum(['completed', 'failed']),
  model: z.string().max(200),
  sessionId: z.string().max(200),
});
export type SubagentResult = z.output<typeof subagentResultSchema>;

/**
 * A custom agent definition as an ask or a run recorded it when it started (`--agent <name>`):
 * what its sessions run with, kept in the stream so a session started or resumed later (after an
 * edit of the file, after a crash) runs with the same definition.
 */
export const agentSnapshotSchema = z.object({
  name: z.string().min(1).max(200),
  scope: z.enum(agentDefinitionScopes),
  source: z.string().max(4_096),
  /** The definition's body (its memory first, when it has one). */
  systemPrompt: z.string().max(100_000),
  /** A full model id, or `inherit` (routing decides). */
  model: z.string().min(1).max(100),
  effort: z.enum(['quick', 'standard', 'deep']).optional(),
  /** The allow-list its sessions run under (team-manifest style); none: every tool. */
  tools: z.array(manifestToolSchema).max(100).optional(),
  maxTurns: z.number().int().positive().optional(),
});
export type AgentSnapshot = z.output<typeof agentSnapshotSchema>;
