import { randomUUID } from 'node:crypto';
import { Command, Option } from 'commander';
import pc from 'picocolors';
import { printTable, success } from '../output';
import type { RunCommandKit } from '../run/run-commands';

type Row = Record<string, unknown>;

const enc = encodeURIComponent;

/** The body of `POST /api/v1/teams/:team/members` from the command line (absent options left to the server's defaults). */
export function spawnBody(name: string, o: { task: string; agentType?: string; model?: string; parent?: string; agentId?: string }): Row {
  return {
    name,
    task: o.task,
    ...(o.agentType ? { agentType: o.agentType } : {}),
    ...(o.model ? { model: o.model } : {}),
    ...(o.parent ? { parent: o.parent } : {}),
    ...(o.agentId ? { agentId: o.agentId } : {}),
  };
}

/** `headspace teammate spawn|list`: live teammates of a team (each spawn starts an agent session in the orchestrator). */
export function addTeammateCommands(program: Command, kit: RunCommandKit): void {
  const { io } = kit;
  const teamOption = () => new Option('-t, --team <name>', 'team (default: HEADSPACE_TEAM or `config set team`)');
  const teammate = program.command('teammate').description('Teammates: agents spawned into a team, each running its own session');

  teammate
    .command('spawn')
    .argument('<name>', 'the teammate’s name in the team (letters, digits, - and _)')
    .addOption(teamOption())
    .requiredOption('--task <text>', 'what the teammate is to do (its spawn prompt)')
    .option('--agent-type <type>', 'agent type (default general-purpose)')
    .option('--model <model>', 'model (default: the parent’s, else the team’s)')
    .option('--parent <member>', 'the teammate spawning this one as a sub-agent (default: the lead)')
    .option('--agent-id <id>', 'agent id of its session key (default "default")')
    .description('Spawn a teammate: its inbox opens and its session starts (its turns appear in `headspace tail`)')
    .action(async (name: string, o: { task: string; agentType?: string; model?: string; parent?: string; agentId?: string }, cmd: Command) => {
      const team = kit.teamOf(cmd);
      const spawned = await kit.client(cmd).post<Row>(`/api/v1/teams/${enc(team)}/members`, spawnBody(name, o), { 'idempotency-key': randomUUID() });
      kit.show(cmd, spawned, () =>
        success(io, `Teammate ${pc.bold(name)} spawned in ${team} (${String(spawned.agentType)}${spawned.model ? `, ${String(spawned.model)}` : ''}); session ${String(spawned.sessionKey)}`),
      );
    });

  teammate
    .command('list')
    .addOption(teamOption())
    .addOption(new Option('--status <status>').choices(['active', 'idle', 'terminated']))
    .description('The team’s roster: the lead and its teammates with their status')
    .action(async (o: { status?: string }, cmd: Command) => {
      const team = kit.teamOf(cmd);
      const members = await kit.client(cmd).all<Row>(`/api/v1/teams/${enc(team)}/members`, { status: o.status });
      kit.show(cmd, members, () =>
        printTable(
          io,
          members,
          [
            ['name', (m) => m.name],
            ['role', (m) => m.role],
            ['type', (m) => m.agentType],
            ['model', (m) => m.model],
            ['status', (m) => (m.status === 'active' ? pc.green('active') : m.status)],
            ['parent', (m) => m.parent],
          ],
          `No members in ${team}.`,
        ),
      );
    });
}
