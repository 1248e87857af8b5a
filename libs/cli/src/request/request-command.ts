import { randomUUID } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { followAsk } from '../ask/ask-command';
import type { AskViewLike } from '../ask/ask-output';
import { CliError, ExitCode } from '../exit-codes';
import { teamNameFor, type RunCommandKit } from '../run/run-commands';

const topologies = ['auto', 'ask', 'run'] as const;
const isGitUrl = (s: string) => /^(https:|ssh:|file:)\/\//.test(s) || /^[\w.~-]+@[\w.-]+:/.test(s);

interface Started {
  requestId: string;
  topology: 'ask' | 'run';
  auto: boolean;
  reasons: string[];
  askId?: string;
  runId?: string;
}

/** `headspace request "<prompt>"`: the orchestrator chooses one agent or the agent team, says why, and (for one agent) streams it. */
export function addRequestCommand(program: Command, kit: RunCommandKit): void {
  program
    .command('request')
    .description('Hand a request to the orchestrator: it chooses one agent (an ask) or the agent team (a run) from the request’s signals and says why')
    .argument('<prompt>', 'what to do')
    .option('-w, --workspace <dir>', 'directory (under the orchestrator’s HS_SOURCE_ROOTS) or git URL (default: the current directory)')
    .option('-t, --team <name>', 'team (default: the workspace directory’s name)')
    .option('--topology <topology>', 'auto (default), ask or run')
    .action(async (prompt: string, o: { workspace?: string; team?: string; topology?: string }, cmd: Command) => {
      if (o.topology !== undefined && !(topologies as readonly string[]).includes(o.topology)) throw new CliError(ExitCode.usage, `--topology must be ${topologies.join(', ')}, got "${o.topology}"`);
      const raw = o.workspace ?? process.cwd();
      const workspace = isGitUrl(raw) ? raw : resolve(raw);
      if (!isGitUrl(raw) && !(existsSync(workspace) && statSync(workspace).isDirectory())) throw new CliError(ExitCode.usage, `No workspace directory at ${workspace}`);
      const team = o.team ?? teamNameFor(workspace.replace(/\.git$/, ''));
      const api = kit.client(cmd);
      const since = new Date(Date.now() - 2_000).toISOString();
      const started = await api.post<Started>(`/api/v1/teams/${encodeURIComponent(team)}/requests`, { prompt, workspace, topology: o.topology ?? 'auto' }, { 'idempotency-key': randomUUID() });
      if (!kit.json(cmd)) kit.io.out.write(`topology: ${started.topology === 'ask' ? 'one agent (ask)' : 'agent team (run)'}${started.auto ? ', chosen' : ', named'} — ${started.reasons.join('; ')}\n`);
      if (started.runId) {
        kit.show(cmd, started, () => kit.io.out.write(`run ${started.runId} started: follow it with \`headspace runs follow ${started.runId}\`\n`));
        return;
      }
      const ask = await api.get<AskViewLike>(`/api/v1/teams/${encodeURIComponent(team)}/asks/${encodeURIComponent(started.askId!)}`);
      const view = await followAsk(api, kit.io, { team, askId: started.askId!, since, signal: kit.signal, json: kit.json(cmd), routing: ask.routing });
      if (view.status === 'failed') throw new CliError(ExitCode.runFailed, `Ask ${view.askId} failed: ${view.failure ?? 'see its events'}`);
    });
}
