import { randomUUID } from 'node:crypto';
import { Command, CommanderError, Option } from 'commander';
import pc from 'picocolors';
import { ApiClient } from './api-client';
import { configPath, maskToken, readConfig, resolveSettings, validateConfigValue, writeConfig } from './config';
import { positionsPath, ReadPositions } from './read-positions';
import { CliError, ExitCode } from './exit-codes';
import { printJson, printRecord, printTable, processIo, success, withSpinner, type Io } from './output';
import { tail } from './tail';
import { addRunCommands } from './run/run-commands';
import { addAskCommand } from './ask/ask-command';
import { addBatchCommands } from './batch/batch-command';
import { addLearningsCommands } from './learning/learnings-command';
import { addPluginCommands } from './plugin/plugin-command';
import { addLoopCommands } from './loop/loop-command';
import { addEvalCommands } from './eval/eval-command';
import { addWorkflowCommands } from './workflow/workflow-command';
import { addRequestCommand } from './request/request-command';
import { addOpsCommands } from './ops/ops-commands';
import { addWebhookCommands } from './webhooks/webhook-commands';
import { addMcpCommand } from './mcp/mcp-command';
import { addAgentCommands } from './agents/agent-commands';
import { addMcpToolsCommand } from './mcp-tools/mcp-tools-command';
import { addTeammateCommands } from './teammates/teammate-commands';
import { addSkillCommands } from './skills/skill-commands';
import { addSkillsRegistryCommands } from './skill-registry/skills-command';
import { addAssembleCommand } from './assemble/assemble-command';
import { addRetroCommand } from './retro/retro-command';

type Row = Record<string, unknown>;

interface GlobalFlags {
  endpoint?: string;
  token?: string;
  json?: boolean;
  team?: string;
}

export interface RunContext {
  io: Io;
  env: NodeJS.ProcessEnv;
  /** Aborted on SIGINT/SIGTERM: long-running commands (tail) stop cleanly. */
  signal: AbortSignal;
}

const enc = encodeURIComponent;

/** Builds the `headspace` command tree. Actions throw CliError; `runCli` turns them into exit codes. */
export function buildProgram(ctx: RunContext): Command {
  const { io } = ctx;
  const program = new Command('headspace')
    .description('Command line for Headspace, the control plane for teams of AI coding agents')
    .version(process.env.HEADSPACE_VERSION ?? '0.1.0')
    .option('--endpoint <url>', 'API endpoint (overrides HEADSPACE_URL and the config file)')
    .option('--token <token>', 'API token (overrides HEADSPACE_TOKEN and the config file)')
    .option('--json', 'print JSON instead of tables (for scripts)')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out.write(s), writeErr: (s) => io.err.write(s), outputError: (s, write) => write(pc.red(s)) });

  const flags = (cmd: Command): GlobalFlags => cmd.optsWithGlobals() as GlobalFlags;
  const client = (cmd: Command) => {
    const f = flags(cmd);
    const settings = resolveSettings({ endpoint: f.endpoint, token: f.token }, ctx.env);
    return new ApiClient(settings.endpoint, settings.token, new ReadPositions(positionsPath(ctx.env), settings.endpoint));
  };
  const teamOf = (cmd: Command): string => {
    const f = flags(cmd);
    const team = f.team || ctx.env.HEADSPACE_TEAM || readConfig(configPath(ctx.env)).team;
    if (!team) throw new CliError(ExitCode.usage, 'Which team? Pass --team <name>', 'Or set a default: headspace config set team <name>');
    return team;
  };
  const call = <T>(label: string, work: () => Promise<T>) => withSpinner(io, label, work);
  const idem = () => ({ 'idempotency-key': randomUUID() });
  /** Prints `value` as JSON with --json, else runs the human rendering. */
  const show = (cmd: Command, value: unknown, human: () => void) => (flags(cmd).json ? printJson(io, value) : human());
  const teamOption = () => new Option('-t, --team <name>', 'team (default: HEADSPACE_TEAM or `config set team`)');

  // ---- config ----------------------------------------------------------------------------------
  const config = program.command('config').description('Where the CLI connects, stored in ~/.config/headspace/config.json (or $HEADSPACE_CONFIG), mode 0600');
  config
    .command('set')
    .description('Set endpoint, token or team')
    .argument('<key>', 'endpoint | token | team')
    .argument('<value>')
    .action((key: string, value: string) => {
      validateConfigValue(key, value);
      const path = configPath(ctx.env);
      writeConfig(path, { ...readConfig(path), [key]: key === 'endpoint' ? value.replace(/\/+$/, '') : value });
      success(io, `${key} saved to ${path}`);
    });
  config
    .command('show')
    .description('Show the effective settings (the token masked)')
    .action((_o, cmd: Command) => {
      const path = configPath(ctx.env);
      const file = readConfig(path);
      const f = flags(cmd);
      const value = {
        path,
        endpoint: f.endpoint || ctx.env.HEADSPACE_URL || file.endpoint || null,
        token: maskToken(f.token || ctx.env.HEADSPACE_TOKEN || file.token),
        team: ctx.env.HEADSPACE_TEAM || file.team || null,
      };
      show(cmd, value, () => printRecord(io, value));
    });
  config
    .command('path')
    .description('Print the config file path')
    .action(() => {
      io.out.write(`${configPath(ctx.env)}\n`);
    });

  // ---- team ------------------------------------------------------------------------------------
  const team = program.command('team').description('Teams');
  team
    .command('create')
    .argument('<name>', 'lowercase letters, digits and dashes')
    .option('--lead <agentType>', 'agent type of the lead')
    .option('-d, --description <text>')
    .option('--model <model>', 'default model of the team')
    .description('Create a team')
    .action(async (name: string, o: { lead?: string; description?: string; model?: string }, cmd: Command) => {
      const body = { name, ...(o.lead ? { leadAgentType: o.lead } : {}), ...(o.description ? { description: o.description } : {}), ...(o.model ? { defaultModel: o.model } : {}) };
      const created = await call('Creating team', () => client(cmd).post<Row>('/api/v1/teams', body, idem()));
      show(cmd, created, () => success(io, `Team ${pc.bold(name)} created (id ${String(created.teamId)})`));
    });
  team
    .command('list')
    .description('Teams the orchestrator knows')
    .action(async (_o, cmd: Command) => {
      const teams = await call('Loading teams', () => client(cmd).all<Row>('/api/v1/teams/known'));
      show(cmd, teams, () => printTable(io, teams, [['name', (t) => t.name], ['lead', (t) => t.leadAgentType], ['id', (t) => t.teamId]], 'No teams yet.'));
    });
  team
    .command('show')
    .argument('<name>')
    .description('A team with its status')
    .action(async (name: string, _o, cmd: Command) => {
      const t = await call('Loading team', () => client(cmd).get<Row>(`/api/v1/teams/${enc(name)}`));
      show(cmd, t, () => printRecord(io, t));
    });
  team
    .command('shutdown')
    .argument('<name>')
    .option('--reason <text>')
    .option('--force', 'end the team now, whatever the members answer')
    .option('--timeout <ms>', 'how long members have to answer', (v) => positiveInt(v, '--timeout'))
    .description('Ask every member to shut down (or force it)')
    .action(async (name: string, o: { reason?: string; force?: boolean; timeout?: number }, cmd: Command) => {
      const path = `/api/v1/teams/${enc(name)}/shutdown${o.force ? '/force' : ''}`;
      const body = { ...(o.reason ? { reason: o.reason } : {}), ...(!o.force && o.timeout ? { timeoutMs: o.timeout } : {}) };
      const result = await call('Shutting down', () => client(cmd).post<Row>(path, body, idem()));
      show(cmd, result, () => success(io, `Team ${pc.bold(name)}: ${String(result.status)}`));
    });

  // ---- persona ---------------------------------------------------------------------------------
  const persona = program.command('persona').description('Personas and pools');
  const loadPersonas = (cmd: Command, pool?: string) => call('Loading personas', () => client(cmd).all<Row>('/api/v1/personas', { pool }));
  persona
    .command('list')
    .option('--pool <pool>')
    .description('Personas with their status')
    .action(async (o: { pool?: string }, cmd: Command) => {
      const rows = await loadPersonas(cmd, o.pool);
      show(cmd, rows, () =>
        printTable(io, rows, [
          ['id', (p) => p.personaId],
          ['name', (p) => p.name],
          ['role', (p) => p.roleType],
          ['pools', (p) => p.pools],
          ['status', (p) => (p.status === 'active' ? pc.green('active') : p.status)],
          ['task', (p) => p.taskId],
        ]),
      );
    });
  persona
    .command('show')
    .argument('<personaId>')
    .description('One persona')
    .action(async (id: string, _o, cmd: Command) => {
      const found = (await loadPersonas(cmd)).find((p) => p.personaId === id);
      if (!found) throw new CliError(ExitCode.apiClient, `No persona "${id}"`, 'See `headspace persona list`.');
      show(cmd, found, () => printRecord(io, found));
    });

  // ---- task ------------------------------------------------------------------------------------
  const task = program.command('task').description('The task list of a team');
  task
    .command('list')
    .addOption(teamOption())
    .addOption(new Option('--status <status>').choices(['pending', 'claimed', 'completed', 'escalated']))
    .option('--owner <owner>')
    .option('--blocked', 'only tasks waiting on dependencies')
    .option('--unblocked', 'only tasks with nothing blocking them')
    .description('List tasks')
    .action(async (o: { status?: string; owner?: string; blocked?: boolean; unblocked?: boolean }, cmd: Command) => {
      if (o.blocked && o.unblocked) throw new CliError(ExitCode.usage, '--blocked and --unblocked exclude each other');
      const t = teamOf(cmd);
      const tasks = await call('Loading tasks', () =>
        client(cmd).all<Row>(`/api/v1/teams/${enc(t)}/tasks`, { status: o.status, owner: o.owner, blocked: o.blocked ? true : o.unblocked ? false : undefined }),
      );
      show(cmd, tasks, () =>
        printTable(
          io,
          tasks,
          [
            ['id', (x) => x.taskId],
            ['subject', (x) => x.subject],
            ['status', (x) => statusColour(String(x.status))],
            ['owner', (x) => x.owner],
            ['depends on', (x) => x.dependsOn],
            ['blocked by', (x) => x.blockedBy],
          ],
          `No tasks in ${t}.`,
        ),
      );
    });
  task
    .command('add')
    .addOption(teamOption())
    .argument('<subject>')
    .option('--id <id>', 'task id (default: derived by the server)')
    .option('-d, --description <text>')
    .option('--depends-on <ids...>', 'ids of tasks this one waits for (space or comma separated)')
    .option('--files <globs...>', 'files this task owns')
    .description('Add a task')
    .action(async (subject: string, o: { id?: string; description?: string; dependsOn?: string[]; files?: string[] }, cmd: Command) => {
      const t = teamOf(cmd);
      const dependsOn = (o.dependsOn ?? []).flatMap((d) => d.split(',')).map((d) => d.trim()).filter(Boolean);
      const body = { subject, ...(o.id ? { id: o.id } : {}), ...(o.description ? { description: o.description } : {}), ...(dependsOn.length ? { dependsOn } : {}), ...(o.files ? { files: o.files } : {}) };
      const created = await call('Adding task', () => client(cmd).post<Row>(`/api/v1/teams/${enc(t)}/tasks`, body, idem()));
      show(cmd, created, () => success(io, `Task ${pc.bold(String(created.taskId))} added to ${t}${dependsOn.length ? ` (after ${dependsOn.join(', ')})` : ''}`));
    });
  const taskAction = (name: 'claim' | 'complete', verb: string) =>
    task
      .command(name)
      .addOption(teamOption())
      .argument('<taskId>')
      .requiredOption('--as <owner>', 'who claims / completes (a member name)')
      .option(name === 'complete' ? '--result <text>' : '--lease <ms>', name === 'complete' ? 'what came of it' : 'lease length in ms')
      .description(`${verb} a task`)
      .action(async (taskId: string, o: { as: string; result?: string; lease?: string }, cmd: Command) => {
        const t = teamOf(cmd);
        const body = { owner: o.as, ...(o.result ? { result: o.result } : {}), ...(o.lease ? { leaseMs: positiveInt(o.lease, '--lease') } : {}) };
        const result = await call(`${verb} task`, () => client(cmd).post<Row>(`/api/v1/teams/${enc(t)}/tasks/${enc(taskId)}/${name}`, body, idem()));
        show(cmd, result, () => success(io, `${verb === 'Claim' ? 'Claimed' : 'Completed'} ${pc.bold(taskId)} as ${o.as}${result.leaseExpiresAt ? ` (lease until ${String(result.leaseExpiresAt)})` : ''}`));
      });
  taskAction('claim', 'Claim');
  taskAction('complete', 'Complete');

  // ---- msg -------------------------------------------------------------------------------------
  const msg = program.command('msg').description('Mailboxes');
  msg
    .command('send')
    .addOption(teamOption())
    .argument('<body>')
    .requiredOption('--from <member>')
    .option('--to <member>', 'recipient (or --broadcast)')
    .option('--broadcast', 'to every member')
    .option('--summary <text>', '5-10 word preview (default: the first words of the body)')
    .description('Send a message')
    .action(async (body: string, o: { from: string; to?: string; broadcast?: boolean; summary?: string }, cmd: Command) => {
      if (!o.to && !o.broadcast) throw new CliError(ExitCode.usage, 'Say who to: --to <member> or --broadcast');
      const t = teamOf(cmd);
      const summary = o.summary ?? body.trim().split(/\s+/).slice(0, 10).join(' ');
      const payload = o.broadcast ? { type: 'broadcast', from: o.from, body, summary } : { type: 'message', from: o.from, to: o.to, body, summary };
      const sent = await call('Sending', () => client(cmd).post<Row>(`/api/v1/teams/${enc(t)}/messages`, payload, idem()));
      show(cmd, sent, () => success(io, `Sent to ${Array.isArray(sent.recipients) ? sent.recipients.join(', ') : o.to}`));
    });
  msg
    .command('inbox')
    .addOption(teamOption())
    .argument('<member>')
    .option('--unread', 'only unread messages')
    .description("A member's messages")
    .action(async (member: string, o: { unread?: boolean }, cmd: Command) => {
      const t = teamOf(cmd);
      const messages = await call('Loading inbox', () => client(cmd).all<Row>(`/api/v1/teams/${enc(t)}/inboxes/${enc(member)}/messages`, { unreadOnly: o.unread ? true : undefined }));
      show(cmd, messages, () =>
        printTable(
          io,
          messages,
          [
            ['sent', (m) => String(m.sentAt ?? '').slice(0, 19).replace('T', ' ')],
            ['from', (m) => m.from],
            ['type', (m) => m.type],
            ['message', (m) => m.summary ?? m.body],
            ['read', (m) => (m.read ? 'yes' : pc.bold('no'))],
          ],
          `${member} has no messages.`,
        ),
      );
    });

  // ---- lock ------------------------------------------------------------------------------------
  const lock = program.command('lock').description('File locks');
  lock
    .command('list')
    .addOption(teamOption())
    .option('--holder <holder>')
    .description('Held locks')
    .action(async (o: { holder?: string }, cmd: Command) => {
      const t = teamOf(cmd);
      const locks = await call('Loading locks', () => client(cmd).all<Row>(`/api/v1/teams/${enc(t)}/locks`, { holder: o.holder }));
      show(cmd, locks, () => printTable(io, locks, [['path', (l) => l.path], ['holder', (l) => l.holder], ['since', (l) => l.since]], 'No locks held.'));
    });
  lock
    .command('add')
    .addOption(teamOption())
    .argument('<path>')
    .requiredOption('--as <holder>')
    .description('Lock a file')
    .action(async (path: string, o: { as: string }, cmd: Command) => {
      const t = teamOf(cmd);
      const result = await call('Locking', () => client(cmd).post<Row>(`/api/v1/teams/${enc(t)}/locks`, { path, holder: o.as }, idem()));
      show(cmd, result, () => success(io, `${String(result.path ?? path)} locked by ${o.as}`));
    });
  lock
    .command('release')
    .addOption(teamOption())
    .argument('<path>')
    .requiredOption('--as <holder>')
    .description('Release a lock')
    .action(async (path: string, o: { as: string }, cmd: Command) => {
      const t = teamOf(cmd);
      const result = await call('Releasing', () => client(cmd).post<Row>(`/api/v1/teams/${enc(t)}/locks/unlock`, { path, holder: o.as }, idem()));
      show(cmd, result, () => success(io, result.released === false ? `${path} was not locked by ${o.as}` : `${path} released`));
    });

  // ---- approval --------------------------------------------------------------------------------
  const approval = program.command('approval').description('The approvals queue');
  approval
    .command('list')
    .addOption(teamOption())
    .addOption(new Option('--status <status>').choices(['pending', 'approved', 'denied', 'all']).default('pending'))
    .description('Approvals waiting (or decided)')
    .action(async (o: { status: string }, cmd: Command) => {
      const t = teamOf(cmd);
      const rows = await call('Loading approvals', () => client(cmd).all<Row>(`/api/v1/teams/${enc(t)}/approvals`, { status: o.status }));
      show(cmd, rows, () =>
        printTable(
          io,
          rows,
          [
            ['id', (a) => a.approvalId],
            ['kind', (a) => a.kind],
            ['summary', (a) => a.summary],
            ['by', (a) => a.requester],
            ['status', (a) => a.status],
            ['expires', (a) => String(a.expiresAt ?? '').slice(0, 19).replace('T', ' ')],
          ],
          'No approvals.',
        ),
      );
    });
  approval
    .command('answer')
    .addOption(teamOption())
    .argument('<approvalId>')
    .addArgument(new Command().createArgument('<decision>', 'approve | deny').choices(['approve', 'deny']))
    .option('--reason <text>')
    .option('--as <who>', 'who answers', 'operator')
    .description('Approve or deny')
    .action(async (id: string, decision: string, o: { reason?: string; as: string }, cmd: Command) => {
      const t = teamOf(cmd);
      const body = { decision, answeredBy: o.as, ...(o.reason ? { reason: o.reason } : {}) };
      const result = await call('Answering', () => client(cmd).post<Row>(`/api/v1/teams/${enc(t)}/approvals/${enc(id)}/answer`, body, idem()));
      show(cmd, result, () => success(io, `Approval ${id}: ${String(result.status)}`));
    });

  // ---- budget / usage ----------------------------------------------------------------------------
  program
    .command('budget')
    .addOption(teamOption())
    .description("A team's budget: limit, spend, reservations, state")
    .action(async (o: { team?: string }, cmd: Command) => {
      const team = o.team || ctx.env.HEADSPACE_TEAM || readConfig(configPath(ctx.env)).team;
      const result = await call('Loading budget', () => client(cmd).get<Row>('/api/v1/budgets', { team }));
      show(cmd, result, () => printGeneric(io, result));
    });
  program
    .command('usage')
    .addOption(teamOption())
    .option('--group-by <key>', 'persona (default), task, session, team, project, surface, model, tier or day')
    .description('Token and USD usage, grouped')
    .action(async (o: { team?: string; groupBy?: string }, cmd: Command) => {
      const team = o.team || ctx.env.HEADSPACE_TEAM || readConfig(configPath(ctx.env)).team;
      const result = await call('Loading usage', () => client(cmd).get<Row>('/api/v1/usage', { team, groupBy: o.groupBy }));
      show(cmd, result, () => printGeneric(io, result));
    });

  // ---- tail ------------------------------------------------------------------------------------
  program
    .command('tail')
    .addOption(teamOption())
    .option('--types <list>', 'comma list of event types; category.* wildcards (task.*,approval.requested)')
    .option('--persona <name>')
    .option('--run <runId>')
    .option('--since <when>', 'new (default), all, or an ISO time')
    .option('--last-event-id <id>', 'resume after this event id')
    .description('Follow the live event stream (Ctrl-C stops); reconnects where it left off')
    .action(async (o: { team?: string; types?: string; persona?: string; run?: string; since?: string; lastEventId?: string }, cmd: Command) => {
      const team = o.team || ctx.env.HEADSPACE_TEAM || readConfig(configPath(ctx.env)).team;
      await tail(client(cmd), io, { ...o, team, json: flags(cmd).json, signal: ctx.signal });
    });

  // ---- runs ------------------------------------------------------------------------------------
  addRunCommands(program, { io, signal: ctx.signal, client, teamOf, show, json: (cmd) => Boolean(flags(cmd).json) });
  addAskCommand(program, { io, signal: ctx.signal, client, teamOf, show, json: (cmd) => Boolean(flags(cmd).json) });
  addBatchCommands(program, { io, signal: ctx.signal, client, teamOf, show, json: (cmd) => Boolean(flags(cmd).json) });
  addLearningsCommands(program, { io, signal: ctx.signal, client, teamOf, show, json: (cmd) => Boolean(flags(cmd).json) });
  addPluginCommands(program, { io, signal: ctx.signal, client, teamOf, show, json: (cmd) => Boolean(flags(cmd).json) });
  addLoopCommands(program, { io, signal: ctx.signal, client, teamOf, show, json: (cmd) => Boolean(flags(cmd).json) });
  addEvalCommands(program, { io, signal: ctx.signal, client, teamOf, show, json: (cmd) => Boolean(flags(cmd).json) });
  addWorkflowCommands(program, { io, signal: ctx.signal, client, teamOf, show, json: (cmd) => Boolean(flags(cmd).json) });
  addRequestCommand(program, { io, signal: ctx.signal, client, teamOf, show, json: (cmd) => Boolean(flags(cmd).json) });
  addOpsCommands(program, { io, signal: ctx.signal, client, teamOf, show, json: (cmd) => Boolean(flags(cmd).json) }, ctx.env);
  addWebhookCommands(program, { io, signal: ctx.signal, client, teamOf, show, json: (cmd) => Boolean(flags(cmd).json) }, ctx.env);
  addMcpCommand(program, { signal: ctx.signal, client });
  addAgentCommands(program, { io, signal: ctx.signal, client, teamOf, show, json: (cmd) => Boolean(flags(cmd).json) });
  addMcpToolsCommand(program, { io, signal: ctx.signal, client, teamOf, show, json: (cmd) => Boolean(flags(cmd).json) });
  addTeammateCommands(program, { io, signal: ctx.signal, client, teamOf, show, json: (cmd) => Boolean(flags(cmd).json) });
  addAssembleCommand(program, { io, signal: ctx.signal, client, teamOf, show, json: (cmd) => Boolean(flags(cmd).json) });
  addRetroCommand(program, { io, signal: ctx.signal, client, teamOf, show, json: (cmd) => Boolean(flags(cmd).json) });
  addSkillCommands(program, { io, signal: ctx.signal, client, teamOf, show, json: (cmd) => Boolean(flags(cmd).json), env: ctx.env });
  addSkillsRegistryCommands(program, { io, signal: ctx.signal, client, teamOf, show, json: (cmd) => Boolean(flags(cmd).json) });

  return program;
}

/** Arrays of objects as tables (one per field), everything else as a key/value table. */
function printGeneric(io: Io, result: Row): void {
  const scalars: Row = {};
  for (const [key, value] of Object.entries(result)) {
    if (Array.isArray(value) && value.every((v) => v && typeof v === 'object' && !Array.isArray(v))) {
      io.out.write(`${pc.bold(key)}\n`);
      const rows = value as Row[];
      const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
      printTable(io, rows, columns.map((c) => [c, (r: Row) => (r[c] !== null && typeof r[c] === 'object' ? JSON.stringify(r[c]) : r[c])] as [string, (r: Row) => unknown]));
    } else scalars[key] = value;
  }
  if (Object.keys(scalars).length) printRecord(io, scalars);
}

function statusColour(status: string): string {
  switch (status) {
    case 'completed':
      return pc.green(status);
    case 'claimed':
      return pc.cyan(status);
    case 'escalated':
      return pc.red(status);
    default:
      return status;
  }
}

function positiveInt(value: string, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new CliError(ExitCode.usage, `${name} must be a positive integer, got "${value}"`);
  return n;
}

/** Runs the CLI and returns its exit code (never calls process.exit itself). */
export async function runCli(argv: string[], ctx: Partial<RunContext> = {}): Promise<number> {
  const io = ctx.io ?? processIo;
  const full: RunContext = { io, env: ctx.env ?? process.env, signal: ctx.signal ?? new AbortController().signal };
  const program = buildProgram(full);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version end with 0; every parsing problem is a usage error.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    if (error instanceof CliError) {
      io.err.write(`${pc.red('✖')} ${error.message}\n`);
      if (error.hint) io.err.write(`${pc.dim(error.hint)}\n`);
      return error.exitCode;
    }
    io.err.write(`${pc.red('✖')} ${(error as Error)?.stack ?? String(error)}\n`);
    return ExitCode.apiServer;
  }
}
