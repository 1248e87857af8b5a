import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import pc from 'picocolors';
import { parseDocument } from 'yaml';
import { CliError, ExitCode } from '../exit-codes';
import { printTable, success } from '../output';
import type { RunCommandKit } from '../run/run-commands';

type Member = { name: string; role: string; model: string; budget: number; permissionMode: string; runtime?: string; tools: string[]; owns: string[] };
type Imported = { team: string; changed: boolean; members: Member[]; streamVersion: string };

/** The `team:` a team.yaml names, when it can be read (the team-manager judges the rest). */
export function teamOfManifest(yaml: string): string | undefined {
  try {
    const doc = parseDocument(yaml, { uniqueKeys: true, prettyErrors: false });
    const team = doc.errors.length ? undefined : (doc.toJS({ maxAliasCount: 50 }) as { team?: unknown } | null)?.team;
    return typeof team === 'string' ? team : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `headspace assemble <team.yaml>` (seed 001 `/assemble`): imports the file as its team's manifest
 * through `PUT /api/v1/teams/:team/manifest` (validated by the team-manager: a bad file is refused
 * naming the field) and prints the roster with the defaults applied.
 */
export function addAssembleCommand(program: Command, kit: RunCommandKit): void {
  program
    .command('assemble')
    .argument('<team.yaml>', 'the team manifest (seed 001), e.g. .claude/team.yaml')
    .addOption(new Option('-t, --team <name>', 'team (default: the `team:` the file names)'))
    .description('Assemble a team from its manifest: import team.yaml and print the roster')
    .action(async (file: string, o: { team?: string }, cmd: Command) => {
      const path = resolve(file);
      if (!existsSync(path) || !statSync(path).isFile()) throw new CliError(ExitCode.usage, `No team manifest at ${path}`);
      const yaml = readFileSync(path, 'utf8');
      const team = o.team ?? teamOfManifest(yaml);
      if (!team) throw new CliError(ExitCode.usage, `${path} names no team: give it a "team:" or pass --team <name>`);
      const imported = await kit
        .client(cmd)
        .request<Imported>('PUT', `/api/v1/teams/${encodeURIComponent(team)}/manifest`, { body: { yaml }, headers: { 'idempotency-key': randomUUID() } });
      kit.show(cmd, imported, () => {
        success(kit.io, `Team ${pc.bold(imported.team)} assembled from ${path}${imported.changed ? '' : ' (unchanged)'}: ${imported.members.length} member${imported.members.length === 1 ? '' : 's'}`);
        printTable(kit.io, imported.members, [
          ['name', (m) => m.name],
          ['role', (m) => m.role],
          ['model', (m) => m.model],
          ['budget', (m) => `$${m.budget.toFixed(2)}`],
          ['permission', (m) => m.permissionMode],
          ['tools', (m) => m.tools.join(', ')],
          ['owns', (m) => m.owns.join(', ')],
        ]);
      });
    });
}
