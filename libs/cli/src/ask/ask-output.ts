/** What the CLI needs of an ask's routing decision and view (the gateway's `AskView`). */
export interface AskRoutingLike {
  model: string;
  tier: string;
  effort: string;
  reasons: string[];
  pinned: boolean;
  pinnedBy?: 'operator' | 'agent';
}

export interface AskViewLike {
  askId: string;
  status: 'running' | 'completed' | 'failed';
  workspace: string;
  routing: AskRoutingLike;
  simulated: boolean;
  result: string | null;
  filesChanged: string[];
  dir: string | null;
  branch: string | null;
  commit: string | null;
  costUsd: string | null;
  failure: string | null;
}

/** `routing: claude-haiku-4-5 (haiku tier, quick effort) — names 1 file: README.md; …`. */
export function routingLine(r: AskRoutingLike): string {
  return `routing: ${r.model} (${r.tier} tier, ${r.effort} effort${r.pinned ? (r.pinnedBy === 'agent' ? ', pinned by the agent' : ', pinned') : ''}) — ${r.reasons.join('; ') || 'no reasons given'}`;
}

type Block = { type?: string; text?: string; name?: string; input?: Record<string, unknown> };

/** The agent's words of one turn without its closing reflection JSON, then one line per tool it called. */
export function turnLines(content: readonly Block[]): string[] {
  const lines: string[] = [];
  for (const block of content) {
    if (block.type === 'text' && block.text) {
      const text = block.text.replace(/```json[\s\S]*?```/g, '').trim();
      if (text) lines.push(text);
    } else if (block.type === 'tool_use' && block.name) {
      const input = block.input ?? {};
      const target = input.file_path ?? input.path ?? input.command ?? input.pattern;
      lines.push(`  ↳ ${block.name}${typeof target === 'string' ? ` ${target.split('\n')[0].slice(0, 100)}` : ''}`);
    }
  }
  return lines;
}

/** The closing block: result, files, where the edit is and how to get it, and the cost (labelled simulated). */
export function summaryLines(view: AskViewLike): string[] {
  const cost = view.costUsd ? `$${view.costUsd}${view.simulated ? ' (simulated)' : ''}` : 'unknown';
  if (view.status === 'failed') return [`✖ ask ${view.askId} failed: ${view.failure ?? 'see its events'}`, `cost:    ${cost}`];
  const lines = [`✔ ask ${view.askId} completed${view.simulated ? '  [simulated]' : ''}`];
  if (view.result) lines.push('', view.result, '');
  lines.push(`files:   ${view.filesChanged.length ? view.filesChanged.join(', ') : '(none changed)'}`);
  if (view.branch && view.dir) {
    lines.push(`result:  branch ${view.branch}${view.commit ? ` at ${view.commit.slice(0, 12)}` : ''} in ${view.dir}`);
    if (view.filesChanged.length) lines.push(`get it:  git -C ${view.workspace} fetch ${view.dir} ${view.branch}   (or: git -C ${view.dir} diff HEAD~1)`);
  }
  lines.push(`cost:    ${cost}`);
  return lines;
}
