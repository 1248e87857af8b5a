import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { abortableSleep as sleep } from '../abortable-sleep';
import { CliError, ExitCode } from '../exit-codes';
import { printTable, success } from '../output';
import type { RunCommandKit } from '../run/run-commands';

const efforts = ['quick', 'standard', 'deep'] as const;
const enc = encodeURIComponent;

/** What the CLI reads of a batch view (the API's BatchView). */
export interface BatchViewLike {
  batchId: string;
  team: string;
  status: 'submitting' | 'in_progress' | 'ended' | 'failed';
  providerBatchId: string | null;
  simulated: boolean;
  items: Array<{ customId: string; persona: string; model: string; status: string; text: string | null; error: string | null; costUsd: string | null }>;
  counts: Record<'pending' | 'succeeded' | 'errored' | 'canceled' | 'expired', number>;
  costUsd: string | null;
  standardCostUsd: string | null;
  failure: string | null;
}

/**
 * The items of a JSONL file: one JSON object a line (`{"prompt": "…", "customId"?, "persona"?,
 * "model"?, "maxTokens"?}`), blank lines skipped. A line that is not such an object is a usage error
 * naming the line; the API checks the fields themselves.
 */
export function readBatchFile(path: string): Array<Record<string, unknown>> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliError(ExitCode.usage, `Cannot read ${path}: ${(error as Error).message}`);
  }
  const items: Array<Record<string, unknown>> = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new CliError(ExitCode.usage, `${path}:${i + 1} is not JSON`, 'Each line is one request: {"prompt": "…"}');
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new CliError(ExitCode.usage, `${path}:${i + 1} is not a JSON object`, 'Each line is one request: {"prompt": "…"}');
    items.push(value as Record<string, unknown>);
  });
  if (items.length === 0) throw new CliError(ExitCode.usage, `${path} holds no requests`);
  return items;
}

const label = (v: BatchViewLike) => (v.simulated ? '  [simulated]' : '');

/** The summary lines of a batch: status, counts and what it cost at batch prices (and at standard). */
export function batchSummaryLines(v: BatchViewLike): string[] {
  const c = v.counts;
  const lines = [`batch ${v.batchId} ${v.status.replace('_', ' ')}${label(v)}`];
  if (v.providerBatchId) lines.push(`api id:  ${v.providerBatchId}`);
  lines.push(`items:   ${c.succeeded} succeeded, ${c.errored} errored, ${c.canceled} canceled, ${c.expired} expired, ${c.pending} pending`);
  if (v.costUsd !== null) lines.push(`cost:    $${v.costUsd} at batch prices${v.standardCostUsd ? ` ($${v.standardCostUsd} at standard)` : ''}${v.simulated ? ' (simulated)' : ''}`);
  if (v.failure) lines.push(`failure: ${v.failure}`);
  return lines;
}

/** `headspace batch submit|status|results|list`: deferrable prompts through the Message Batches API. */
export function addBatchCommands(program: Command, kit: RunCommandKit): void {
  const batch = program.command('batch').description('Deferrable prompts as Message Batches: answered within 24 hours at batch prices (50%)');
  const path = (team: string, id?: string) => `/api/v1/teams/${enc(team)}/batches${id ? `/${enc(id)}` : ''}`;

  batch
    .command('submit')
    .description('Submit a JSONL file of requests ({"prompt": "…", "customId"?, "persona"?, "model"?, "maxTokens"?} a line)')
    .argument('<file>', 'the JSONL file')
    .option('-t, --team <name>', 'team (default: HEADSPACE_TEAM or `config set team`)')
    .option('--model <model>', 'pin every item’s model (id or alias) instead of routing')
    .option('--effort <effort>', 'pin the thinking effort: quick, standard or deep')
    .option('--wait', 'poll until the batch ends and print its summary')
    .action(async (file: string, o: { team?: string; model?: string; effort?: string; wait?: boolean }, cmd: Command) => {
      if (o.effort !== undefined && !(efforts as readonly string[]).includes(o.effort)) throw new CliError(ExitCode.usage, `--effort must be ${efforts.join(', ')}, got "${o.effort}"`);
      const requests = readBatchFile(file);
      const team = o.team ?? kit.teamOf(cmd);
      const api = kit.client(cmd);
      const body = { requests, ...(o.model ? { model: o.model } : {}), ...(o.effort ? { effort: o.effort } : {}) };
      const submitted = await api.post<{ batchId: string; items: Array<{ customId: string; model: string }> }>(path(team), body, { 'idempotency-key': randomUUID() });
      if (!o.wait) {
        kit.show(cmd, submitted, () => success(kit.io, `batch ${submitted.batchId} submitted: ${submitted.items.length} requests`));
        return;
      }
      let view = await api.get<BatchViewLike>(path(team, submitted.batchId));
      while (view.status === 'submitting' || view.status === 'in_progress') {
        await sleep(500, kit.signal);
        if (kit.signal.aborted) break;
        view = await api.get<BatchViewLike>(path(team, submitted.batchId));
      }
      kit.show(cmd, view, () => batchSummaryLines(view).forEach((line) => kit.io.out.write(`${line}\n`)));
      if (view.status === 'failed') throw new CliError(ExitCode.runFailed, `Batch ${view.batchId} failed: ${view.failure ?? 'see its events'}`);
    });

  batch
    .command('status')
    .description('A batch’s status, counts and cost')
    .argument('<batchId>')
    .option('-t, --team <name>', 'team (default: HEADSPACE_TEAM or `config set team`)')
    .action(async (batchId: string, o: { team?: string }, cmd: Command) => {
      const view = await kit.client(cmd).get<BatchViewLike>(path(o.team ?? kit.teamOf(cmd), batchId));
      kit.show(cmd, view, () => batchSummaryLines(view).forEach((line) => kit.io.out.write(`${line}\n`)));
    });

  batch
    .command('results')
    .description('Every item of a batch: custom id, status, answer and cost at batch prices')
    .argument('<batchId>')
    .option('-t, --team <name>', 'team (default: HEADSPACE_TEAM or `config set team`)')
    .action(async (batchId: string, o: { team?: string }, cmd: Command) => {
      const view = await kit.client(cmd).get<BatchViewLike>(path(o.team ?? kit.teamOf(cmd), batchId));
      kit.show(cmd, view.items, () => {
        printTable(kit.io, view.items, [
          ['custom id', (i) => i.customId],
          ['status', (i) => i.status],
          ['model', (i) => i.model],
          ['cost (USD)', (i) => i.costUsd ?? ''],
          ['answer', (i) => (i.text ?? i.error ?? '').split('\n')[0].slice(0, 100)],
        ]);
        batchSummaryLines(view).forEach((line) => kit.io.out.write(`${line}\n`));
      });
    });

  batch
    .command('list')
    .description('The team’s batches, newest first')
    .option('-t, --team <name>', 'team (default: HEADSPACE_TEAM or `config set team`)')
    .action(async (o: { team?: string }, cmd: Command) => {
      const rows = await kit.client(cmd).all<{ batchId: string; status: string; items: number; costUsd: string | null; simulated: boolean; submittedAt: string }>(path(o.team ?? kit.teamOf(cmd)));
      kit.show(cmd, rows, () =>
        printTable(kit.io, rows, [
          ['batch', (r) => r.batchId],
          ['status', (r) => r.status],
          ['items', (r) => r.items],
          ['cost (USD)', (r) => (r.costUsd ? `${r.costUsd}${r.simulated ? ' (simulated)' : ''}` : '')],
          ['submitted', (r) => r.submittedAt],
        ]),
      );
    });
}
