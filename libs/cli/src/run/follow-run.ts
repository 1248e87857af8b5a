import { createInterface } from 'node:readline/promises';
import type { ApiClient } from '../api-client';
import type { Io } from '../output';
import { renderRunProgress, renderRunSummary, type RunSummary, type RunViewLike, type SpendGroup } from './run-progress';
import { abortableSleep as sleep } from '../abortable-sleep';

export interface FollowOptions {
  team: string;
  runId: string;
  signal: AbortSignal;
  /** Ask the operator on the terminal when the run waits for them (interactive runs on a TTY). */
  ask?: boolean;
  intervalMs?: number;
  input?: NodeJS.ReadableStream;
}

interface Spend {
  groups: SpendGroup[];
  total: { costUsd: string };
}

const ENDED = new Set(['completed', 'failed']);

/**
 * Follows a run until it ends: on a terminal the progress block is redrawn in place, elsewhere
 * (pipes, CI logs) a line is printed whenever what it shows changes. Returns the summary.
 */
export async function followRun(api: ApiClient, io: Io, options: FollowOptions): Promise<RunSummary | undefined> {
  const path = `/api/v1/teams/${encodeURIComponent(options.team)}/runs/${encodeURIComponent(options.runId)}`;
  const tty = Boolean(io.out.isTTY);
  const color = tty && !process.env.NO_COLOR;
  const width = Math.max(60, Math.min(140, (io.out as { columns?: number }).columns ?? 100));
  let drawn = 0;
  let lastPrinted = new Set<string>();
  let view: RunViewLike | undefined;
  let cost: string | undefined;
  let costAt = 0;
  while (!options.signal.aborted) {
    view = await api.get<RunViewLike>(path);
    if (Date.now() - costAt > 2_000 || ENDED.has(view.phase)) {
      cost = (await spend(api, options.team, options.runId, 'persona'))?.total.costUsd ?? cost;
      costAt = Date.now();
    }
    const lines = renderRunProgress(view, cost, { width, color, now: new Date() });
    if (tty) {
      io.out.write(`${drawn ? `\x1b[${drawn}A` : ''}${lines.map((l) => `\x1b[2K${l}`).join('\n')}\n`);
      drawn = lines.length;
    } else {
      // Without a terminal: only the lines that changed, minus the clock in the header.
      const current = new Set(lines.slice(1));
      for (const line of lines.slice(1)) if (!lastPrinted.has(line)) io.out.write(`${line.trim()}\n`);
      lastPrinted = current;
    }
    if (ENDED.has(view.phase)) break;
    if (view.waitingFor && options.ask) {
      await askOperator(api, io, path, view, options);
      drawn = 0;
      continue;
    }
    await sleep(options.intervalMs ?? 500, options.signal);
  }
  if (!view || !ENDED.has(view.phase)) return undefined;
  const [byPersona, byModel] = await Promise.all([spend(api, options.team, options.runId, 'persona'), spend(api, options.team, options.runId, 'model')]);
  const summary: RunSummary = { view, byPersona: byPersona?.groups ?? [], byModel: byModel?.groups ?? [], totalUsd: byPersona?.total.costUsd };
  io.out.write(`${renderRunSummary(summary, { width, color }).join('\n')}\n`);
  return summary;
}

async function spend(api: ApiClient, team: string, runId: string, groupBy: string): Promise<Spend | undefined> {
  try {
    return await api.get<Spend>('/api/v1/usage/spend', { team, project: runId, groupBy });
  } catch {
    return undefined; // the cost governor being away must not stop the progress display
  }
}

/** Puts the run's question to the operator on the terminal and sends the answer. */
async function askOperator(api: ApiClient, io: Io, path: string, view: RunViewLike & { spec?: unknown }, options: FollowOptions): Promise<void> {
  const rl = createInterface({ input: options.input ?? process.stdin, output: io.out as NodeJS.WritableStream });
  try {
    const answer = (body: Record<string, unknown>) => api.post(`${path}/answer`, body);
    if (view.questions.length) {
      io.out.write(`\nRobbo asks:\n${view.questions.map((q, i) => `  ${i + 1}. ${q}`).join('\n')}\n`);
      const text = (await rl.question('Your answer: ')).trim();
      await answer({ kind: 'questions', answer: text || 'No further constraints.' });
    } else if (view.phase === 'spec-review') {
      io.out.write(`\nThe spec:\n${JSON.stringify(view.spec, null, 2)}\n`);
      await rl.question('Press Enter to accept it (Ctrl-C to stop and answer later with `headspace runs answer`). ');
      await answer({ kind: 'spec', accept: true });
    } else if (view.phase === 'tasks-review') {
      await rl.question('Press Enter to approve Gavin’s tasks as proposed (edit them with `headspace runs answer --tasks <file>`). ');
      await answer({ kind: 'tasks' });
    } else {
      const escalation = view.waitingFor ?? '';
      const id = /escalation (\S+):/.exec(escalation)?.[1];
      const yes = (await rl.question(`${escalation}\nContinue the run? [Y/n] `)).trim().toLowerCase();
      if (id) await answer({ kind: 'escalation', escalationId: id, answer: yes === 'n' || yes === 'no' ? 'stop' : 'continue' });
    }
  } finally {
    rl.close();
  }
}
