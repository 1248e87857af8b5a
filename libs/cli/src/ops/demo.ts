import { randomUUID } from 'node:crypto';
import { Command } from 'commander';
import pc from 'picocolors';
import { ApiError, type ApiClient } from '../api-client';
import { CliError, ExitCode } from '../exit-codes';
import type { Io } from '../output';
import type { RunCommandKit } from '../run/run-commands';
import { callDemoApp, findDemoApp, startDemoApp, type DemoAppProcess } from './demo-app';
import { DemoStream, type StreamPayload } from './demo-stream';
import { formatEntry, runLine, timelineEntry, type TimelineEntry } from './demo-timeline';

export interface OpsDemoOptions {
  /** The project's name; when it already holds the demo's bug from an earlier demo, `<name>-2`, `-3`, … */
  project: string;
  team: string;
  appDir: string;
  /** Deny the fix-approval instead of approving it: the group stays at FIX_PROPOSED. */
  deny: boolean;
  /** How long each wait (for RESOLVED, for REGRESSED) may take. */
  timeoutMs: number;
  verifyWindowSeconds: number;
  signal: AbortSignal;
}

export interface OpsDemoResult {
  project: string;
  groupId: string;
  /** REGRESSED, or with --deny the state the denial left the group in (FIX_PROPOSED). */
  outcome: string;
  /** The group's states in the order the stream brought its events. */
  states: string[];
  timeline: TimelineEntry[];
  runId?: string;
  approvalId?: string;
  simulated: boolean;
}

const enc = encodeURIComponent;
const idem = () => ({ 'idempotency-key': randomUUID() });
const BUGGY_PATH = '/orders/1002/total';
const GIVE_UP_STATES = new Set(['DISMISSED', 'ESCALATED']);

/**
 * `headspace ops demo`: Leon's whole loop against a running platform. The demo app (a shop with an
 * order-total bug) reports its exception; the group's timeline is printed from the SSE stream while
 * Leon triages it, proposes a fix, the operator (this command) approves it, the team's fix run
 * writes a failing regression test and the fix, and the group is verified and resolved; then the
 * same exception from a new release reopens it as REGRESSED.
 */
export async function runOpsDemo(api: ApiClient, options: OpsDemoOptions, progress: Io['out']): Promise<OpsDemoResult> {
  const say = (line: string) => progress.write(`${line}\n`);
  const since = new Date(Date.now() - 1_000).toISOString();
  await ensureTeam(api, options.team);
  const project = await demoProject(api, options, say);
  const key = await api.post<{ keyId: string; publicKey: string }>(`/api/v1/ops/projects/${enc(project)}/keys`, { label: 'headspace ops demo' }, idem());
  const stream = await DemoStream.open(api, { types: 'group.*,approval.*,run.*', since }, options.signal);
  const ingestUrl = `${api.endpoint}/api/v1/ops/projects/${enc(project)}/exceptions`;
  let app: DemoAppProcess | undefined;
  try {
    app = await startDemoApp(options.appDir, { ingestUrl, ingestKey: key.publicKey, release: 'ops-demo-shop@1.0.0' });
    say(`The demo app (${options.appDir}) listens on ${app.url}, release ${app.release}, reporting to project ${pc.bold(project)}.`);
    const fine = await callDemoApp(app, '/orders/1001/total');
    say(`GET /orders/1001/total → ${fine.status} ${JSON.stringify(fine.body)}`);
    const groupId = await hitTheBug(app, say);
    say(`\n${pc.bold('Timeline')} of group ${groupId} (from the SSE stream)`);
    const follower = new GroupFollower(api, stream, groupId, options, say);

    if (options.deny) {
      await follower.until(() => follower.decided !== undefined, 'the fix-approval to be decided');
      const group = await api.get<{ state: string }>(`/api/v1/ops/groups/${enc(groupId)}`);
      say(`Denied: Leon does not fix it; the group stays at ${pc.bold(group.state)}.`);
      return follower.result(project, group.state);
    }
    await follower.until(() => follower.state === 'RESOLVED', 'RESOLVED');
    await app.stop();
    app = await startDemoApp(options.appDir, { ingestUrl, ingestKey: key.publicKey, release: 'ops-demo-shop@1.1.0' });
    say(`\nA later release (${app.release}) still has the bug in the demo app's own checkout:`);
    const again = await hitTheBug(app, say);
    if (again !== groupId) throw new CliError(ExitCode.runFailed, `The same exception opened another group (${again}, not ${groupId}): its fingerprint changed`);
    await follower.until(() => follower.state === 'REGRESSED', 'REGRESSED');
    say(`\n${pc.green('✔')} ${pc.bold('REGRESSED')}: the fixed bug came back in ${app.release}, so Leon reopened the group.${follower.simulated ? ' (The models were simulated.)' : ''}`);
    return follower.result(project, 'REGRESSED');
  } finally {
    stream.close();
    await app?.stop();
    await api.request('DELETE', `/api/v1/ops/projects/${enc(project)}/keys/${enc(key.keyId)}`, { query: { reason: 'the demo is over' }, headers: idem() }).catch(() => undefined);
  }
}

async function ensureTeam(api: ApiClient, team: string): Promise<void> {
  try {
    await api.post('/api/v1/teams', { name: team, description: "Leon's demo: the team that fixes the demo app's exceptions" }, idem());
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 409)) throw error;
  }
}

/** The project (created, or its settings put right), unless an earlier demo left the bug's group in it. */
async function demoProject(api: ApiClient, options: OpsDemoOptions, say: (line: string) => void): Promise<string> {
  const settings = { repository: options.appDir, team: options.team, testCommand: 'npm test', verifyWindowSeconds: options.verifyWindowSeconds, trusted: false };
  for (let n = 1; n <= 100; n++) {
    const name = n === 1 ? options.project : `${options.project}-${n}`;
    const exists = await api.get(`/api/v1/ops/projects/${enc(name)}`).then(
      () => true,
      (error: unknown) => (error instanceof ApiError && error.status === 404 ? false : Promise.reject(error)),
    );
    if (!exists) {
      await api.post('/api/v1/ops/projects', { project: name, displayName: "Leon's demo shop", ...settings }, idem());
      return name;
    }
    const groups = await api.get<{ items: unknown[] }>('/api/v1/ops/groups', { project: name, limit: 1 });
    if (groups.items.length === 0) {
      await api.request('PATCH', `/api/v1/ops/projects/${enc(name)}`, { body: settings, headers: idem() });
      return name;
    }
    say(pc.dim(`Project ${name} already holds the bug from an earlier demo; using ${options.project}-${n + 1}.`));
  }
  throw new CliError(ExitCode.usage, `Projects ${options.project} to ${options.project}-100 all hold the demo's bug already`, 'Pass --project <another name>.');
}

/** Calls the buggy route: the app answers 500 once Headspace has the exception, with the group it went to. */
async function hitTheBug(app: DemoAppProcess, say: (line: string) => void): Promise<string> {
  const { status, body } = await callDemoApp(app, BUGGY_PATH);
  const reported = body.reported as { groupId?: string; eventId?: string } | undefined;
  say(`GET ${BUGGY_PATH} → ${status} ${JSON.stringify({ error: body.error })}${reported?.eventId ? `; reported as event ${reported.eventId}` : ''}`);
  if (status !== 500 || !reported?.groupId) {
    throw new CliError(ExitCode.runFailed, `The demo app did not report its exception (HTTP ${status})`, app.output.slice(-10).join('\n') || undefined);
  }
  return reported.groupId;
}

/** Reads the stream in order: prints the group's transitions and its fix run's steps, and answers its fix-approval. */
class GroupFollower {
  state = '';
  simulated = false;
  runId: string | undefined;
  approvalId: string | undefined;
  decided: string | undefined;
  private readonly states: string[] = [];
  private readonly timeline: TimelineEntry[] = [];
  /** Run events that came before the run was named (the streams are not ordered with each other). */
  private readonly earlyRunEvents: StreamPayload[] = [];

  constructor(
    private readonly api: ApiClient,
    private readonly stream: DemoStream,
    private readonly groupId: string,
    private readonly options: OpsDemoOptions,
    private readonly say: (line: string) => void,
  ) {}

  async until(done: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + this.options.timeoutMs;
    while (!done()) {
      if (this.options.signal.aborted) throw new CliError(ExitCode.runFailed, `Stopped while waiting for ${what}`);
      if (GIVE_UP_STATES.has(this.state)) {
        const last = this.timeline.at(-1);
        throw new CliError(ExitCode.runFailed, `Leon moved group ${this.groupId} to ${this.state} instead of fixing it${last?.why ? `: ${last.why}` : ''}`);
      }
      const event = await this.stream.next(deadline);
      if (!event) throw new CliError(ExitCode.runFailed, this.stuck(what), this.runId ? `The fix run: headspace runs show ${this.runId} -t ${this.options.team}` : undefined);
      await this.take(event);
    }
  }

  result(project: string, outcome: string): OpsDemoResult {
    return { project, groupId: this.groupId, outcome, states: this.states, timeline: this.timeline, runId: this.runId, approvalId: this.approvalId, simulated: this.simulated };
  }

  private stuck(what: string): string {
    const seconds = Math.round(this.options.timeoutMs / 1_000);
    const last = this.timeline.at(-1);
    if (!last) return `Timed out after ${seconds} s waiting for ${what}: nothing about group ${this.groupId} came on the stream`;
    return `Timed out after ${seconds} s waiting for ${what}: group ${this.groupId} is stuck in ${this.state} (since ${last.at}, by ${last.by || '?'}${last.why ? `: ${last.why}` : ''})`;
  }

  private async take(event: StreamPayload): Promise<void> {
    const d = event.data;
    if (event.type.startsWith('group.')) {
      if (d.groupId !== this.groupId) return;
      const entry = timelineEntry(event, this.state);
      if (!entry) return;
      this.simulated ||= entry.simulated;
      this.timeline.push(entry);
      if (entry.state !== this.state) this.states.push(entry.state);
      this.state = entry.state;
      this.say(formatEntry(entry));
      if (event.type === 'group.fix-started' && typeof d.runId === 'string') {
        this.runId = d.runId;
        for (const early of this.earlyRunEvents.splice(0)) this.takeRun(early);
      }
      if (event.type === 'group.fix-proposed' && typeof d.approvalId === 'string') await this.answer(d.approvalId);
      return;
    }
    if (event.type.startsWith('run.')) {
      if (!this.runId) this.earlyRunEvents.push(event);
      else this.takeRun(event);
      return;
    }
    if (event.type === 'approval.decided' && d.approvalId === this.approvalId) {
      this.decided = String(d.decision);
      this.say(`${new Date(event.time).toISOString().slice(11, 19)}  ${'  └'.padEnd(15)} ${String(d.decidedBy).padEnd(9)} fix-approval ${d.decision === 'deny' ? 'denied' : 'approved'}`);
    }
  }

  private takeRun(event: StreamPayload): void {
    if (event.data.runId !== this.runId) return;
    if (event.type === 'run.started') this.simulated ||= event.data.simulated === true;
    const line = runLine(event, this.simulated);
    if (line) this.say(pc.dim(line));
  }

  /** The operator's answer, through the API (the approval may need a moment to reach the team's queue). */
  private async answer(approvalId: string): Promise<void> {
    this.approvalId = approvalId;
    const decision = this.options.deny ? 'deny' : 'approve';
    this.say(pc.bold(`${decision === 'approve' ? 'approving' : 'denying'} as operator (fix-approval ${approvalId})`));
    const path = `/api/v1/teams/${enc(this.options.team)}/approvals/${enc(approvalId)}/answer`;
    const body = { decision, answeredBy: 'operator', reason: `headspace ops demo${this.options.deny ? ' --deny' : ''}` };
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        await this.api.post(path, body, idem());
        return;
      } catch (error) {
        if (!(error instanceof ApiError && error.status === 404) || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }
}

/** Registers `headspace ops demo` under `ops`. */
export function addOpsDemoCommand(ops: Command, kit: RunCommandKit): void {
  ops
    .command('demo')
    .description("Leon end to end: the demo app's exception, triage, the fix approval, the fix run, VERIFIED, RESOLVED, then REGRESSED, as a timeline")
    .option('--deny', 'deny the fix-approval instead: the group stays at FIX_PROPOSED')
    .option('--project <name>', 'the demo project', 'ops-demo')
    .option('--team <name>', 'the team that fixes it', 'ops-demo')
    .option('--app <dir>', 'the demo app (default: examples/ops/demo-app of this checkout)')
    .option('--timeout <seconds>', 'how long to wait for RESOLVED (and then for REGRESSED)', '300')
    .option('--verify-window <seconds>', "the project's verify window: how long after the fix no event may come", '3')
    .action(async (o: { deny?: boolean; project: string; team: string; app?: string; timeout: string; verifyWindow: string }, cmd: Command) => {
      const appDir = o.app ?? findDemoApp();
      if (!appDir) throw new CliError(ExitCode.usage, 'No demo app found (examples/ops/demo-app)', 'Run it from the Headspace checkout, or pass --app <dir>.');
      const options: OpsDemoOptions = {
        project: o.project,
        team: o.team,
        appDir,
        deny: Boolean(o.deny),
        timeoutMs: seconds(o.timeout, '--timeout') * 1_000,
        verifyWindowSeconds: seconds(o.verifyWindow, '--verify-window'),
        signal: kit.signal,
      };
      const json = kit.json(cmd);
      const result = await runOpsDemo(kit.client(cmd), options, json ? kit.io.err : kit.io.out);
      kit.show(cmd, result, () => undefined);
    });
}

function seconds(value: string, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new CliError(ExitCode.usage, `${name} must be a whole number of seconds, got "${value}"`);
  return n;
}
