import { z } from 'zod';
import { HeadspaceError } from '@headspace/contracts';
import { resolveInWorkspace } from './paths';
import { defineTool, fail, ok, type AnyToolDefinition, type ToolContext, type ToolResult } from './types';

/** Who is calling a team tool. */
export interface TeamCaller {
  agentId: string;
  teamId?: string;
  sessionId?: string;
  /** The `tool_use` id: an idempotency key for the command behind the call. */
  toolUseId: string;
}

export const teamTaskStatuses = ['pending', 'claimed', 'blocked', 'complete'] as const;

export interface TeamTaskView {
  id: string;
  title: string;
  status: string;
  assignee?: string;
  dependencies?: string[];
  files?: string[];
  [extra: string]: unknown;
}

export interface NewTeamTask {
  /** A name for the task within its batch: other tasks of the batch may list it in `dependencies`. */
  key?: string;
  title: string;
  /** The persona pool (skill domain) the task is for, e.g. backend, frontend, qa. */
  pool?: string;
  description?: string;
  dependencies?: string[];
  files?: string[];
  acceptanceCriteria?: string[];
}

/**
 * The team protocol as the agent sees it. The orchestrator implements this over NATS (commands to
 * team-manager); methods throw a HeadspaceError (TASK.ALREADY_CLAIMED, LOCK.HELD, …) on refusal,
 * which the tool turns into an error result the model reads.
 */
export interface TeamToolsPort {
  listTasks(filter: { status?: (typeof teamTaskStatuses)[number]; assignee?: string }, caller: TeamCaller): Promise<TeamTaskView[]>;
  createTasks(tasks: NewTeamTask[], caller: TeamCaller): Promise<{ taskIds: string[] }>;
  claimTask(taskId: string, caller: TeamCaller): Promise<TeamTaskView>;
  completeTask(taskId: string, outcome: { summary: string; filesModified?: string[] }, caller: TeamCaller): Promise<TeamTaskView>;
  /** Gives a held task back with the reason (recorded as a failed approach); after too many attempts the team-manager escalates it instead. */
  releaseTask(taskId: string, reason: string, caller: TeamCaller): Promise<TeamTaskView>;
  sendMessage(message: { to: string; type?: string; body: string }, caller: TeamCaller): Promise<{ messageId: string }>;
  broadcastMessage(message: { type?: string; body: string }, caller: TeamCaller): Promise<{ messageIds: string[] }>;
  /** `path` is workspace-relative (already checked to stay inside the workspace). */
  lockFile(path: string, caller: TeamCaller): Promise<{ path: string; holder: string; expiresAt?: string }>;
  unlockFile(path: string, caller: TeamCaller): Promise<{ path: string }>;
  requestApproval(request: { subject: string; details?: string }, caller: TeamCaller): Promise<{ approvalId: string; status: string }>;
  /** An approval of the caller's team: pending, or the decision with its reason. Unknown (or another team's) → APPROVAL.NOT_FOUND. */
  getApproval(approvalId: string, caller: TeamCaller): Promise<TeamApprovalView>;
}

export interface TeamApprovalView {
  approvalId: string;
  subject: string;
  status: string;
  decision?: string;
  reason?: string;
  decidedBy?: string;
  expiresAt: string;
}

const messageTypes = ['task_assignment', 'finding', 'question', 'status_update', 'message'] as const;

const callerOf = (ctx: ToolContext): TeamCaller => ({ agentId: ctx.agentId, teamId: ctx.teamId, sessionId: ctx.sessionId, toolUseId: ctx.toolUseId });

async function delegate(call: () => Promise<unknown>): Promise<ToolResult> {
  try {
    const value = await call();
    return ok(JSON.stringify(value, null, 2));
  } catch (e) {
    if (e instanceof HeadspaceError) return fail(e.code, `Refused by the team (${e.code}): ${e.message}`);
    throw e;
  }
}

/** The nine team tools, delegating to `port`. They are not subject to the manifest allowlist. */
export function createTeamTools(port: TeamToolsPort): AnyToolDefinition[] {
  return [
    defineTool({
      name: 'list_tasks',
      description: 'List the tasks of your team, optionally filtered by status or assignee.',
      alwaysAllowed: true,
      readOnly: true,
      schema: z.strictObject({ status: z.enum(teamTaskStatuses).optional(), assignee: z.string().min(1).optional() }),
      execute: (input, ctx) => delegate(() => port.listTasks(input, callerOf(ctx))),
    }),
    defineTool({
      name: 'create_tasks',
      description:
        'Add tasks to the team task list. A dependency is the id of an existing task or the key of another task in the same call; the ids come back in the order given.',
      alwaysAllowed: true,
      schema: z.strictObject({
        tasks: z
          .array(
            z.strictObject({
              key: z.string().min(1).max(64).optional(),
              title: z.string().min(1).max(300),
              pool: z.string().min(1).max(64).optional(),
              description: z.string().max(10_000).optional(),
              dependencies: z.array(z.string().min(1)).max(50).optional(),
              files: z.array(z.string().min(1)).max(100).optional(),
              acceptanceCriteria: z.array(z.string().min(1)).max(50).optional(),
            }),
          )
          .min(1)
          .max(50)
          .superRefine((tasks, ctx) => {
            const seen = new Set<string>();
            tasks.forEach((task, i) => {
              if (task.key === undefined) return;
              if (seen.has(task.key)) ctx.addIssue({ code: 'custom', path: [i, 'key'], message: `key "${task.key}" is used twice in this call` });
              seen.add(task.key);
            });
          }),
      }),
      execute: (input, ctx) => delegate(() => port.createTasks(input.tasks, callerOf(ctx))),
    }),
    defineTool({
      name: 'claim_task',
      description: 'Claim a pending task so you can work on it.',
      alwaysAllowed: true,
      schema: z.strictObject({ task_id: z.string().min(1) }),
      execute: (input, ctx) => delegate(() => port.claimTask(input.task_id, callerOf(ctx))),
    }),
    defineTool({
      name: 'complete_task',
      description: 'Mark a task you hold as complete, with a summary of what was done.',
      alwaysAllowed: true,
      schema: z.strictObject({
        task_id: z.string().min(1),
        summary: z.string().min(1).max(10_000),
        files_modified: z.array(z.string().min(1)).max(500).optional(),
      }),
      execute: (input, ctx) =>
        delegate(() => port.completeTask(input.task_id, { summary: input.summary, filesModified: input.files_modified }, callerOf(ctx))),
    }),
    defineTool({
      name: 'release_task',
      description:
        'Give back a task you hold but cannot finish, saying why (what you tried, what blocks you): it returns to the list for a teammate, or is escalated to the lead after too many attempts.',
      alwaysAllowed: true,
      schema: z.strictObject({ task_id: z.string().min(1), reason: z.string().min(1).max(2_000) }),
      execute: (input, ctx) => delegate(() => port.releaseTask(input.task_id, input.reason, callerOf(ctx))),
    }),
    defineTool({
      name: 'send_message',
      description: 'Send a message to one teammate (by name).',
      alwaysAllowed: true,
      schema: z.strictObject({ to: z.string().min(1), body: z.string().min(1).max(20_000), type: z.enum(messageTypes).optional() }),
      execute: (input, ctx) => delegate(() => port.sendMessage(input, callerOf(ctx))),
    }),
    defineTool({
      name: 'broadcast_message',
      description: 'Send a message to every teammate.',
      alwaysAllowed: true,
      schema: z.strictObject({ body: z.string().min(1).max(20_000), type: z.enum(messageTypes).optional() }),
      execute: (input, ctx) => delegate(() => port.broadcastMessage(input, callerOf(ctx))),
    }),
    defineTool({
      name: 'lock_file',
      description: 'Take the lock on a workspace file before editing a file you do not own.',
      alwaysAllowed: true,
      schema: z.strictObject({ path: z.string().min(1) }),
      access: (input) => ({ reads: [input.path] }),
      async execute(input, ctx) {
        const { relative } = await resolveInWorkspace(ctx.workspaceRoot, input.path);
        return delegate(() => port.lockFile(relative, callerOf(ctx)));
      },
    }),
    defineTool({
      name: 'unlock_file',
      description: 'Release a file lock you hold.',
      alwaysAllowed: true,
      schema: z.strictObject({ path: z.string().min(1) }),
      access: (input) => ({ reads: [input.path] }),
      async execute(input, ctx) {
        const { relative } = await resolveInWorkspace(ctx.workspaceRoot, input.path);
        return delegate(() => port.unlockFile(relative, callerOf(ctx)));
      },
    }),
    defineTool({
      name: 'request_approval',
      description: 'Ask a human operator (or lead) to approve something before you do it.',
      alwaysAllowed: true,
      schema: z.strictObject({ subject: z.string().min(1).max(500), details: z.string().max(20_000).optional() }),
      execute: (input, ctx) => delegate(() => port.requestApproval(input, callerOf(ctx))),
    }),
    defineTool({
      name: 'check_approval',
      description: 'Look up an approval you requested: still pending, or approved / denied with the reason.',
      alwaysAllowed: true,
      readOnly: true,
      schema: z.strictObject({ approval_id: z.string().min(1).max(100) }),
      execute: (input, ctx) => delegate(() => port.getApproval(input.approval_id, callerOf(ctx))),
    }),
  ];
}

export const TEAM_TOOL_NAMES = [
  'list_tasks',
  'create_tasks',
  'claim_task',
  'complete_task',
  'release_task',
  'send_message',
  'broadcast_message',
  'lock_file',
  'unlock_file',
  'request_approval',
  'check_approval',
] as const;

