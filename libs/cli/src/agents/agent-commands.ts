import { readFile } from 'node:fs/promises';
import { basename, isAbsolute, resolve } from 'node:path';
import { Command } from 'commander';
import pc from 'picocolors';
import { CliError, ExitCode } from '../exit-codes';
import { printTable, success, type Io } from '../output';
import type { RunCommandKit } from '../run/run-commands';

interface FileIssue {
  file: string;
  field: string;
  message: string;
}
interface Warning {
  code: string;
  message: string;
}
interface Listing {
  agents: Array<{ name: string; scope: string; model: string; tools?: string[]; disallowedTools?: string[]; source: string; shadows: string[] }>;
  errors: FileIssue[];
  warnings: Warning[];
}
interface Validation {
  valid: boolean;
  name?: string;
  errors: FileIssue[];
  warnings: Warning[];
}

/** A directory given on the command line is sent absolute; URLs (`https://`, `ssh://`, `file://`, `user@host:path`) as written. */
export function sourceArgument(source: string, cwd = process.cwd()): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source) || /^[^/\s]+@[^/\s]+:/.test(source) || isAbsolute(source)) return source;
  return resolve(cwd, source);
}

export function printIssues(io: Io, errors: FileIssue[], warnings: Warning[]): void {
  for (const e of errors) io.err.write(`${pc.red('✖')} ${e.file}: ${pc.bold(e.field)}: ${e.message}\n`);
  for (const w of warnings) io.err.write(`${pc.yellow('!')} ${w.message} ${pc.dim(`(${w.code})`)}\n`);
}

const toolsOf = (a: Listing['agents'][number]) => (a.tools ? a.tools.join(', ') : a.disallowedTools ? `all but ${a.disallowedTools.join(', ')}` : 'all');

/** `headspace agents list|validate`: custom agent definitions through the REST API. */
export function addAgentCommands(program: Command, kit: RunCommandKit): void {
  const { io } = kit;
  const agents = program.command('agents').description('Custom agents (.headspace/agents/*.md) a lead can delegate to');

  agents
    .command('list')
    .description('Agents a session in a project sees (project > user > shipped templates), invalid files and warnings')
    .option('-t, --team <name>', 'team (default: HEADSPACE_TEAM or `config set team`)')
    .option('--source <dir or git URL>', 'the project: a directory under the orchestrator’s HS_SOURCE_ROOTS, or a git URL (default: user and built-in agents only)')
    .action(async (o: { source?: string }, cmd: Command) => {
      const listing = await kit.client(cmd).get<Listing>(`/api/v1/teams/${encodeURIComponent(kit.teamOf(cmd))}/agents`, o.source ? { source: sourceArgument(o.source) } : undefined);
      kit.show(cmd, listing, () => {
        printTable(
          io,
          listing.agents,
          [
            ['name', (a) => a.name],
            ['scope', (a) => a.scope],
            ['model', (a) => a.model],
            ['tools', toolsOf],
            ['source', (a) => (a.shadows.length ? `${a.source} (shadows ${a.shadows.length})` : a.source)],
          ],
          'No agents.',
        );
        printIssues(io, listing.errors, listing.warnings);
      });
    });

  agents
    .command('validate')
    .argument('<file>', 'an agent definition (.md with YAML frontmatter)')
    .description('Check an agent file: errors name the frontmatter field; anti-patterns are warnings. Exits 2 when it is invalid')
    .action(async (file: string, _o, cmd: Command) => {
      const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
        throw new CliError(ExitCode.usage, `Cannot read ${file}: ${error.code ?? error.message}`);
      });
      const result = await kit.client(cmd).post<Validation>('/api/v1/agents/validate', { file: basename(file), text });
      kit.show(cmd, result, () => {
        if (result.valid) success(io, `${file}: agent ${pc.bold(String(result.name))} is valid${result.warnings.length ? ` (${result.warnings.length} warning${result.warnings.length === 1 ? '' : 's'})` : ''}`);
        printIssues(io, result.errors, result.warnings);
      });
      if (!result.valid) throw new CliError(ExitCode.apiClient, `${file} is not a valid agent definition (${result.errors.map((e) => e.field).join(', ')})`);
    });
}
