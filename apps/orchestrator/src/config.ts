import type { ServiceName } from '@headspace/contracts';
import { baseConfigSchema, portSchema } from '@headspace/platform';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { parseSourceRoots } from './runs/run-source.policy';

export const SERVICE: ServiceName = 'orchestrator';

const ms = (min: number, max: number) => z.coerce.number({ error: 'must be a number of milliseconds' }).int().min(min).max(max);

export const configSchema = baseConfigSchema.extend({
  HTTP_PORT: portSchema(3002),
  /** Real Claude when set; without it the in-process Messages-API simulator answers ("simulated"). Never logged. */
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  /** Any Messages-API-compatible server (a proxy, a gateway, a simulator elsewhere). */
  ANTHROPIC_BASE_URL: z.url({ error: 'must be an http(s) URL' }).optional(),
  /** Extra simulator scenario directories (PATH-style list), preferred over the shipped ones. */
  HS_SIMULATOR_SCENARIOS: z.string().optional(),
  /** The simulator answers like a model would: `<first-token ms>,<output tokens/s>` (default: instant). */
  HS_SIMULATOR_LATENCY: z
    .string()
    .regex(/^\s*(instant|\d{1,6}\s*,\s*\d{1,6}(\.\d+)?)?\s*$/, 'must be "instant" or "<first-token ms>,<output tokens/s>", e.g. "600,80"')
    .optional(),
  /** Per-attempt timeout of a model call. */
  LLM_TIMEOUT_MS: ms(1_000, 3_600_000).default(600_000),
  /** Retries of 429/5xx/529 and connection errors, with backoff. */
  LLM_MAX_RETRIES: z.coerce.number({ error: 'must be a whole number' }).int().min(0).max(10).default(4),
  /**
   * Directories a run's `source` path may lie under (`:` or `,` separated, absolute); git URLs are
   * always allowed. Default: `examples/` of the working directory (the shipped example only).
   */
  HS_SOURCE_ROOTS: z
    .string()
    .default(join(process.cwd(), 'examples'))
    .transform(parseSourceRoots)
    .refine((roots) => roots.length > 0 && roots.every((r) => isAbsolute(r)), { error: 'must be one or more absolute directories separated by ":" or ","' }),
  /** Where run checkouts and persona worktrees live. */
  HS_WORKSPACES_DIR: z.string().min(1).default(join(process.cwd(), '.headspace', 'runs')),
  /** Personas' skill files and learnings (`<home>/personas/<persona>/learnings.md`). */
  HS_AGENT_HOME: z.string().min(1).default(join(process.cwd(), '.headspace', 'agents')),
  /** A local plugin marketplace: a `.claude-plugin/marketplace.json` file or the directory holding it; its plugins install by name. */
  HS_PLUGIN_MARKETPLACE: z.string().min(1).optional(),
  /** A session's lease; an instance that stops renewing it loses the session to another after this long. */
  SESSION_LEASE_MS: ms(1_000, 3_600_000).default(30_000),
  /** How often running sessions nobody holds are looked for (and resumed). */
  SESSION_SWEEP_MS: ms(100, 3_600_000).default(5_000),
  /** Model calls a session may make before it ends as max_turns. */
  SESSION_MAX_TURNS: z.coerce.number({ error: 'must be a whole number' }).int().min(1).max(1_000).default(60),
  /** max_tokens of each model call. */
  SESSION_MAX_OUTPUT_TOKENS: z.coerce.number({ error: 'must be a whole number' }).int().min(256).max(128_000).default(8_192),
  /** Formatter run on every file an agent writes (format-on-write hook), e.g. `npx prettier --write`; none: off. */
  HS_FORMAT_COMMAND: z
    .string()
    .trim()
    .min(1)
    .transform((cmd) => cmd.split(/\s+/))
    .optional(),
  /** The `claude` executable of Claude Code sessions; default: the installed @anthropic-ai/claude-code binary, else `claude` on PATH. */
  HS_CLAUDE_BINARY: z.string().min(1).optional(),
  /** A Claude Code session's `--max-budget-usd` when no governor budget limits it and its manifest entry names none. */
  HS_CLAUDE_MAX_BUDGET_USD: z.coerce.number({ error: 'must be a number' }).positive().max(10_000).default(5),
  /** Managed hook settings (enterprise policy) every session loads; the agents' own are `<HS_AGENT_HOME>/.headspace/settings.json`. */
  HS_MANAGED_SETTINGS: z.string().min(1).optional(),
  /**
   * `on` (default): every process an agent starts runs in a bubblewrap sandbox, and sessions refuse
   * to start where bubblewrap cannot run. `off`: agents run unsandboxed, as the orchestrator's own
   * user — logged as a warning at start and on every session, and shown at GET /health/sandbox.
   */
  HS_SANDBOX: z.enum(['on', 'off'], { error: 'must be "on" or "off"' }).default('on'),
  /** The bubblewrap executable; default `bwrap` on PATH. */
  HS_SANDBOX_BWRAP: z.string().min(1).optional(),
  /** Most processes one sandboxed call may have at once (fork bombs hit this). */
  HS_SANDBOX_MAX_PROCESSES: z.coerce.number({ error: 'must be a whole number' }).int().min(8).max(65_536).default(256),
  /** Above this many MCP tools a session gets ToolSearch and loads MCP tools on demand instead of all in the prompt. */
  HS_MCP_TOOL_SEARCH_THRESHOLD: z.coerce.number({ error: 'must be a whole number' }).int().min(0).max(10_000).default(25),
  /** Time limit for starting an MCP server, initializing and listing its tools. */
  HS_MCP_CONNECT_TIMEOUT_MS: ms(100, 300_000).default(15_000),
  /** Time limit of one MCP tool call. */
  HS_MCP_TOOL_TIMEOUT_MS: ms(100, 3_600_000).default(120_000),
  /**
   * Share of the working window (0–1) at which a session hands off to a fresh one. The working
   * window is the model's, capped at the price table's long-context step (200K on the 1M models).
   */
  SESSION_HANDOFF_THRESHOLD: z.coerce.number({ error: 'must be a number between 0.1 and 0.99' }).min(0.1).max(0.99).default(0.8),
  /**
   * Seed 003 Req 2.12: the percentage (1–100) of the working window at which a session compacts its
   * conversation (default 83.5%, 85% on a 1M window). Below SESSION_HANDOFF_THRESHOLD it compacts
   * and carries on; at or above it, the session hands off first (ADR 0042).
   */
  HEADSPACE_AUTOCOMPACT_PCT_OVERRIDE: z.coerce.number({ error: 'must be a number from 1 to 100' }).min(1).max(100).optional(),
  /** Claude Code's name for it, honoured when HEADSPACE_AUTOCOMPACT_PCT_OVERRIDE is not set. */
  CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: z.coerce.number({ error: 'must be a number from 1 to 100' }).min(1).max(100).optional(),
  /** The seed's own name for it, honoured when neither of the others is set. */
  BRAINMASS_AUTOCOMPACT_PCT_OVERRIDE: z.coerce.number({ error: 'must be a number from 1 to 100' }).min(1).max(100).optional(),
  /** The model prompt and agent hooks are evaluated on when they name none (a light one, governor-routed). */
  HS_HOOK_MODEL: z.string().min(1).default('haiku'),
  /** experience.md keeps this many task-completion lines per persona (oldest out, into archive.md). */
  HS_EXPERIENCE_MAX_ENTRIES: z.coerce.number().int().min(1).max(10_000).default(100),
  /** How long a `skill-file-update` approval waits for an answer before it is denied (teams in `approval` curation mode). */
  HS_SKILL_APPROVAL_TIMEOUT_MS: ms(100, 30 * 24 * 3_600_000).default(7 * 24 * 3_600_000),
  /** How often active runs are reconciled without a triggering event. */
  RUN_SWEEP_MS: ms(100, 3_600_000).default(5_000),
  /** Lease of a run's claims on the team's task list; renewed while the session works (every quarter of it, at the next sweep). */
  RUN_TASK_LEASE_MS: ms(1_000, 86_400_000).default(4 * 3_600_000),
  /** Time limit of a fix run's regression check (its test command, run by the orchestrator in the sandbox). */
  HS_FIX_CHECK_TIMEOUT_MS: ms(1_000, 3_600_000).default(600_000),
  /** How often batches in progress are polled at the Message Batches API (and lost wake-ups picked up). */
  HS_BATCH_POLL_MS: ms(100, 3_600_000).default(30_000),
  /** The learning store (ADR 0048): `off` gives sessions no retrieved learnings and records none from reflections. */
  HS_LEARNINGS_STORE: z.enum(['on', 'off'], { error: 'must be "on" or "off"' }).default('on'),
  /** At most this many learnings are retrieved for a session's prompt (seed 003 Req 21.3 top-K). */
  HS_LEARNINGS_TOP_K: z.coerce.number().int().min(1).max(100).default(5),
  /** Token budget of the learnings block of a session's system prompt (≈ 4 characters a token). */
  HS_LEARNINGS_TOKEN_BUDGET: z.coerce.number().int().min(50).max(20_000).default(600),
  /** Embeddings for learning retrieval: `none` (full-text ranking only); a provider needs pgvector on the server (ADR 0048). */
  HS_LEARNINGS_EMBEDDINGS: z.enum(['none'], { error: 'must be "none" (no embedding provider is built in)' }).default('none'),
  /** How many steps of one workflow run at once, unless its definition says `concurrency`. */
  HS_WORKFLOW_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(4),
});

export type AppConfig = z.output<typeof configSchema>;
