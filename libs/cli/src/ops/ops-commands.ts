import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import pc from 'picocolors';
import type { ApiClient } from '../api-client';
import { CliError, ExitCode } from '../exit-codes';
import { printRecord, printTable, success } from '../output';
import type { RunCommandKit } from '../run/run-commands';
import { addOpsDemoCommand } from './demo';

type Row = Record<string, unknown>;
const enc = encodeURIComponent;
const idem = () => ({ 'idempotency-key': randomUUID() });

const WEBHOOK_KEYS = ['id', 'url', 'secret', 'format', 'events', 'min-severity'] as const;

/**
 * `--webhook id=ops,url=https://…,secret=env:OPS_HOOK_SECRET,format=slack,events=RESOLVED|REGRESSED,min-severity=error`.
 * `,name=` starts the next pair, so a misspelt key is refused rather than swallowed into a value (a
 * URL whose query holds `,name=` goes in `--file`). `secret=env:NAME` reads the secret from the
 * environment, so it stays out of shell history and `ps`.
 */
export function parseWebhookSpec(spec: string, env: NodeJS.ProcessEnv): Row {
  const pairs = spec.split(/,(?=[A-Za-z][\w-]*=)/);
  const out: Row = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const key = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    if (eq < 1 || !(WEBHOOK_KEYS as readonly string[]).includes(key)) {
      throw new CliError(ExitCode.usage, `--webhook: "${pair}" is not one of ${WEBHOOK_KEYS.map((k) => `${k}=…`).join(', ')}`);
    }
    if (key === 'secret' && value.startsWith('env:')) {
      const name = value.slice(4);
      if (!env[name]) throw new CliError(ExitCode.usage, `--webhook: secret=env:${name} but ${name} is not set`);
      out.secret = env[name];
    } else if (key === 'events') out.events = value.split('|').filter(Boolean);
    else if (key === 'min-severity') out.minSeverity = value;
    else out[key] = value;
  }
  if (!out.id || !out.url) throw new CliError(ExitCode.usage, '--webhook needs at least id=… and url=…');
  return out;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

const WINDOW_UNITS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** `--verify-window 600`, `90s`, `30m`, `1h`, `2d` → whole seconds (the API bounds it). */
export function parseWindow(text: string): number {
  const match = /^(\d+)\s*([smhd]?)$/i.exec(text.trim());
  if (!match) throw new CliError(ExitCode.usage, `--verify-window: "${text}" is not a duration (600, 90s, 30m, 1h, 2d)`);
  return Number(match[1]) * WINDOW_UNITS[(match[2] || 's').toLowerCase()];
}

interface RemediationOptions {
  team?: string;
  testCommand?: string;
  verifyWindow?: string;
}

/** The remediation settings given on the command line, as the API names them (absent ones left out). */
export const remediationBody = (o: RemediationOptions): Row => ({
  ...(o.team ? { team: o.team } : {}),
  ...(o.testCommand ? { testCommand: o.testCommand } : {}),
  ...(o.verifyWindow !== undefined ? { verifyWindowSeconds: parseWindow(o.verifyWindow) } : {}),
});

const remediationOptions = (cmd: Command) =>
  cmd
    .option('--team <name>', 'the team that approves and runs its fixes (none: its groups escalate to the operator)')
    .option('--test-command <command>', "the command that runs its tests in a checkout (default 'npm test')")
    .option('--verify-window <duration>', "how long no event of a fix's release may come before the fix is VERIFIED (600, 30m, 1h; default 1h)");

/** `headspace ops …`: Leon's projects, ingest keys, exception groups and notifications, through the REST API. */
export function addOpsCommands(program: Command, kit: RunCommandKit, env: NodeJS.ProcessEnv): void {
  const { io } = kit;
  const ops = program.command('ops').description("Leon: monitored projects, ingest keys (DSNs), exception groups and their notifications");
  const api = (cmd: Command): ApiClient => kit.client(cmd);

  // ---- projects --------------------------------------------------------------------------------
  const projects = ops.command('projects').description('Monitored applications');
  remediationOptions(
    projects
      .command('create')
      .argument('<name>', 'lowercase letters, digits and hyphens')
      .requiredOption('--repository <url-or-path>', 'where its code lives (git URL or a directory on the orchestrator host)')
      .option('--display-name <text>')
      .option('--trusted', 'low-severity fixes may run without an approval')
      .option('--environment <name>', 'an environment it runs in (repeatable)', collect),
  )
    .description('Create a project')
    .action(async (name: string, o: { repository: string; displayName?: string; trusted?: boolean; environment?: string[] } & RemediationOptions, cmd: Command) => {
      const body = {
        project: name,
        repository: o.repository,
        ...(o.displayName ? { displayName: o.displayName } : {}),
        trusted: Boolean(o.trusted),
        environments: o.environment ?? [],
        ...remediationBody(o),
      };
      const created = await api(cmd).post<Row>('/api/v1/ops/projects', body, idem());
      kit.show(cmd, created, () => success(io, `Project ${pc.bold(name)} created (id ${String(created.projectId)}); next: headspace ops keys create ${name}`));
    });
  remediationOptions(
    projects
      .command('update')
      .argument('<project>')
      .option('--repository <url-or-path>')
      .option('--display-name <text>')
      .option('--trusted', 'low-severity fixes may run without an approval')
      .option('--no-trusted', 'every fix waits for an approval')
      .option('--environment <name>', 'the environments it runs in, replacing the list (repeatable)', collect),
  )
    .description("Change a project's settings; the ones not given stay")
    .action(async (project: string, o: { repository?: string; displayName?: string; trusted?: boolean; environment?: string[] } & RemediationOptions, cmd: Command) => {
      const body = {
        ...(o.repository ? { repository: o.repository } : {}),
        ...(o.displayName ? { displayName: o.displayName } : {}),
        ...(o.trusted !== undefined ? { trusted: o.trusted } : {}),
        ...(o.environment ? { environments: o.environment } : {}),
        ...remediationBody(o),
      };
      if (!Object.keys(body).length) throw new CliError(ExitCode.usage, 'nothing to change: give at least one setting (see --help)');
      const updated = await api(cmd).request<{ project: Row }>('PATCH', `/api/v1/ops/projects/${enc(project)}`, { body, headers: idem() });
      kit.show(cmd, updated.project, () => success(io, `Project ${pc.bold(project)} updated`));
    });
  projects
    .command('list')
    .description('Every project')
    .action(async (_o, cmd: Command) => {
      const page = await api(cmd).get<{ projects?: Row[]; items?: Row[] }>('/api/v1/ops/projects', { limit: 500 });
      const rows = page.projects ?? page.items ?? [];
      kit.show(cmd, rows, () =>
        printTable(
          io,
          rows,
          [['project', (p) => p.project], ['id', (p) => p.projectId], ['repository', (p) => p.repository], ['team', (p) => p.team ?? '-'], ['trusted', (p) => p.trusted], ['keys', (p) => p.activeKeys]],
          'No projects yet.',
        ),
      );
    });
  projects
    .command('show')
    .argument('<project>', 'name or numeric DSN id')
    .description('A project')
    .action(async (project: string, _o, cmd: Command) => {
      const p = await api(cmd).get<Row>(`/api/v1/ops/projects/${enc(project)}`);
      kit.show(cmd, p, () => printRecord(io, p));
    });

  // ---- ingest keys -----------------------------------------------------------------------------
  const keys = ops.command('keys').description("A project's ingest keys (Sentry DSNs): they can only ingest");
  keys
    .command('create')
    .argument('<project>')
    .option('--label <text>', 'what the key is for', 'default')
    .description('Create an ingest key and print its DSN (shown once)')
    .action(async (project: string, o: { label: string }, cmd: Command) => {
      const client = api(cmd);
      const created = await client.post<Row>(`/api/v1/ops/projects/${enc(project)}/keys`, { label: o.label }, idem());
      const key: Row = { ...created, dsn: created.dsn ?? dsnOf(client.endpoint, String(created.publicKey), String(created.projectId)) };
      kit.show(cmd, key, () => {
        io.out.write(`${String(key.dsn)}\n`);
        io.err.write(`${pc.dim(`key ${String(key.keyId)}: the DSN is shown only now; configure your SDK with it.`)}\n`);
      });
    });
  keys
    .command('list')
    .argument('<project>')
    .option('--all', 'revoked keys too')
    .description("A project's keys (hints only, never the key)")
    .action(async (project: string, o: { all?: boolean }, cmd: Command) => {
      const page = await api(cmd).get<{ keys?: Row[]; items?: Row[] }>(`/api/v1/ops/projects/${enc(project)}/keys`, { includeRevoked: o.all ? 'true' : undefined });
      const rows = page.keys ?? page.items ?? [];
      kit.show(cmd, rows, () =>
        printTable(io, rows, [['key', (k) => k.keyId], ['hint', (k) => k.hint], ['label', (k) => k.label], ['created', (k) => k.createdAt], ['revoked', (k) => k.revokedAt]], 'No keys.'),
      );
    });
  keys
    .command('revoke')
    .argument('<project>')
    .argument('<keyId>')
    .option('--reason <text>')
    .description('Revoke an ingest key: events sent with it are refused from now on')
    .action(async (project: string, keyId: string, o: { reason?: string }, cmd: Command) => {
      const path = `/api/v1/ops/projects/${enc(project)}/keys/${enc(keyId)}`;
      const revoked = await api(cmd).request<Row>('DELETE', path, { query: { reason: o.reason }, headers: idem() });
      kit.show(cmd, revoked, () => success(io, `Key ${keyId} of ${project} revoked at ${String(revoked.revokedAt)}`));
    });

  // ---- groups ----------------------------------------------------------------------------------
  const groups = ops.command('groups').description('Exception groups (one per fingerprint) and their fix lifecycle');
  groups
    .command('list')
    .option('--project <name>')
    .option('--state <state>', 'NEW, ANALYSING, FIX_PROPOSED, …, RESOLVED, DISMISSED, ESCALATED, REGRESSED')
    .option('--severity <severity>', 'critical, error, warning or noise')
    .addOption(new Option('--sort <order>', 'most recent, most frequent or newest first').choices(['last-seen', 'count', 'first-seen']))
    .description('Groups, most recently seen first')
    .action(async (o: { project?: string; state?: string; severity?: string; sort?: string }, cmd: Command) => {
      const rows = await api(cmd).all<Row>('/api/v1/ops/groups', { project: o.project, state: o.state?.toUpperCase(), severity: o.severity, sort: o.sort });
      kit.show(cmd, rows, () =>
        printTable(
          io,
          rows,
          [
            ['group', (g) => g.groupId],
            ['project', (g) => g.project],
            ['state', (g) => g.state],
            ['severity', (g) => g.severity],
            ['count', (g) => g.count],
            ['title', (g) => String(g.title ?? '').slice(0, 80)],
            ['last seen', (g) => g.lastSeen],
          ],
          'No exception groups.',
        ),
      );
    });
  groups
    .command('show')
    .argument('<groupId>')
    .description('A group with its latest stack and its timeline')
    .action(async (groupId: string, _o, cmd: Command) => {
      const g = await api(cmd).get<Row>(`/api/v1/ops/groups/${enc(groupId)}`);
      kit.show(cmd, g, () => printGroup(kit, g));
    });
  groups
    .command('transition')
    .argument('<groupId>')
    .argument('<action>', 'dismiss, escalate, resolve, reopen, or fix (an escalated group: Leon starts its fix run, the reason is the approach)')
    .option('--reason <text>', 'why (required to dismiss)')
    .description("Move a group through its lifecycle by hand")
    .action(async (groupId: string, action: string, o: { reason?: string }, cmd: Command) => {
      const body = { action, ...(o.reason ? { reason: o.reason } : {}) };
      const result = await api(cmd).post<Row>(`/api/v1/ops/groups/${enc(groupId)}/transitions`, body, idem());
      kit.show(cmd, result, () => success(io, `Group ${groupId}: ${String(result.state)}`));
    });

  // ---- notifications ---------------------------------------------------------------------------
  const notifications = ops.command('notifications').description("A project's webhooks and email for its groups' transitions");
  notifications
    .command('set')
    .argument('<project>')
    .option('--webhook <spec>', 'id=…,url=…,secret=…|env:VAR[,format=headspace|slack][,events=A|B][,min-severity=…] (repeatable)', collect)
    .option('--email <address>', 'email for critical and error groups (repeatable)', collect)
    .addOption(new Option('--email-min-severity <severity>', 'email critical only, or critical and error').choices(['critical', 'error']))
    .option('--file <json>', 'the settings as a JSON file ({webhooks, email}) instead of the options')
    .description('Replace the notification settings (a webhook named again without a secret keeps its secret)')
    .action(async (project: string, o: { webhook?: string[]; email?: string[]; emailMinSeverity?: string; file?: string }, cmd: Command) => {
      const body = o.file ? readJsonFile(o.file) : {
        webhooks: (o.webhook ?? []).map((spec) => parseWebhookSpec(spec, env)),
        email: o.email?.length ? { to: o.email, ...(o.emailMinSeverity ? { minSeverity: o.emailMinSeverity } : {}) } : null,
      };
      const saved = await api(cmd).request<Row>('PUT', `/api/v1/ops/projects/${enc(project)}/notifications`, { body, headers: idem() });
      kit.show(cmd, saved, () => {
        success(io, `Notifications of ${pc.bold(project)} saved`);
        printSettings(kit, saved);
      });
    });
  notifications
    .command('show')
    .argument('<project>')
    .description('The notification settings (secrets are never shown)')
    .action(async (project: string, _o, cmd: Command) => {
      const settings = await api(cmd).get<Row>(`/api/v1/ops/projects/${enc(project)}/notifications`);
      kit.show(cmd, settings, () => printSettings(kit, settings));
    });
  notifications
    .command('deliveries')
    .argument('<project>')
    .option('--limit <n>', 'how many, newest first', '50')
    .description('The latest deliveries with their state and attempts')
    .action(async (project: string, o: { limit: string }, cmd: Command) => {
      const page = await api(cmd).get<{ items: Row[] }>(`/api/v1/ops/projects/${enc(project)}/notifications/deliveries`, { limit: o.limit });
      kit.show(cmd, page.items, () =>
        printTable(
          io,
          page.items,
          [['delivery', (d) => d.deliveryId], ['to', (d) => `${String(d.channel)} ${String(d.target)}`], ['group', (d) => d.groupId], ['state', (d) => `${String(d.to)}: ${String(d.state)}`], ['attempts', (d) => d.attempts], ['last error', (d) => d.lastError]],
          'No deliveries yet.',
        ),
      );
    });

  addOpsDemoCommand(ops, kit);
}

/** The Sentry-style DSN of a key: `<scheme>://<publicKey>@<gateway host>/<projectId>`. */
export function dsnOf(endpoint: string, publicKey: string, projectId: string): string {
  const url = new URL(endpoint);
  return `${url.protocol}//${publicKey}@${url.host}${url.pathname.replace(/\/+$/, '')}/${projectId}`;
}

function readJsonFile(path: string): unknown {
  if (!existsSync(path)) throw new CliError(ExitCode.usage, `No file at ${path}`);
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new CliError(ExitCode.usage, `${path} is not JSON: ${(error as Error).message}`);
  }
}

function printSettings(kit: RunCommandKit, s: Row): void {
  const hooks = (s.webhooks as Row[] | undefined) ?? [];
  printTable(kit.io, hooks, [['webhook', (w) => w.id], ['url', (w) => w.url], ['format', (w) => w.format], ['events', (w) => w.events ?? 'all'], ['min severity', (w) => w.minSeverity ?? 'any'], ['secret', () => 'set']], 'No webhooks.');
  const email = s.email as { to: string[]; minSeverity: string } | null | undefined;
  kit.io.out.write(email ? `email: ${email.to.join(', ')} (${email.minSeverity} and above)\n` : 'email: off\n');
}

function printGroup(kit: RunCommandKit, g: Row): void {
  const { samples, transitions, ...summary } = g as Row & { samples?: Row[]; transitions?: Row[] };
  printRecord(kit.io, summary);
  const latest = samples?.[0];
  if (latest) {
    kit.io.out.write(`\n${pc.bold('Stack')} (latest event ${String(latest.eventId)})\n${String(latest.type)}: ${String(latest.message)}\n`);
    const frames = (latest.frames as Row[] | undefined) ?? [];
    // Innermost last (Sentry order): print innermost first, as a traceback reads.
    for (const f of [...frames].reverse()) {
      const where = `${String(f.filename ?? f.module ?? '?')}${f.lineno ? `:${String(f.lineno)}` : ''}`;
      kit.io.out.write(`  at ${String(f.function ?? '<anonymous>')} (${where})${f.inApp === false ? pc.dim(' [lib]') : ''}\n`);
    }
    if (!frames.length && latest.stack) kit.io.out.write(`${String(latest.stack)}\n`);
  }
  kit.io.out.write(`\n${pc.bold('Timeline')}\n`);
  printTable(kit.io, transitions ?? [], [['at', (t) => t.at], ['from', (t) => t.from], ['to', (t) => t.to], ['by', (t) => t.by], ['reason', (t) => t.reason]], 'No transitions yet.');
}
