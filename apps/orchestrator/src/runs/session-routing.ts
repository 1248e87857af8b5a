import { THINKING_BUDGET_TOKENS, type EffortLevel, type ModelTier, type RoutingDecision, type SessionRouting, type TaskSignals } from '@headspace/contracts';
import { askSignals } from '../asks/ask-signals';
import { regressionKeyOf, type RunState, type SessionPurpose } from './run.state';

/**
 * The model and effort of each kind of work when the cost governor cannot be asked (and of
 * sessions recorded before run sessions were routed): Robbo's workshop, review and escalations on
 * Opus, the rest on Sonnet.
 */
export const MODEL_FOR: Record<SessionPurpose, { model: string; effort: EffortLevel }> = {
  workshop: { model: 'opus', effort: 'deep' },
  review: { model: 'opus', effort: 'standard' },
  escalation: { model: 'opus', effort: 'standard' },
  decompose: { model: 'sonnet', effort: 'standard' },
  task: { model: 'sonnet', effort: 'standard' },
  qa: { model: 'sonnet', effort: 'standard' },
};

/** The session about to start, as the planner names it. */
export interface SessionToRoute {
  purpose: SessionPurpose;
  taskKey?: string;
  round?: number;
  attempt: number;
}

/** What the governor is asked for one session: the signals, why they are what they are, and any pin. */
export interface SessionRouteRequest {
  signals: TaskSignals;
  reasons: string[];
  model?: string;
  effort?: EffortLevel;
  pinnedBy?: 'operator' | 'agent';
}

const base: TaskSignals = { isExploration: false, filesAffected: 1, requiresReasoning: false, isTeamLead: false, dependencyDepth: 0, ambiguity: 'low' };

/** The run's custom agent (`--agent`) runs its build sessions: builders' tasks, not a fix run's regression test (Verner's QA work). */
export function usesRunAgent(state: RunState, s: Pick<SessionToRoute, 'purpose' | 'taskKey'>): boolean {
  return Boolean(state.started?.agent) && s.purpose === 'task' && s.taskKey !== undefined && s.taskKey !== regressionKeyOf(state);
}

/** Files the run's tasks have touched so far (what QA tests and Robbo reviews). */
function runFiles(state: RunState): number {
  const files = new Set<string>();
  for (const t of Object.values(state.tasks)) for (const f of t.mergedFiles ?? t.files) files.add(f);
  return files.size;
}

/** How many tasks stand below this one in the run's dependency graph (a cycle counts once). */
function depthOf(state: RunState, key: string, seen: Set<string> = new Set()): number {
  if (seen.has(key)) return 0;
  seen.add(key);
  const deps = state.tasks[key]?.task.dependsOn ?? [];
  return deps.length ? 1 + Math.max(...deps.map((d) => depthOf(state, d, seen))) : 0;
}

/** A builder's task read like an ask: its subject and description (files named, risky words, breadth), its dependencies and its history. */
function taskSignals(state: RunState, s: SessionToRoute): { signals: TaskSignals; reasons: string[] } {
  const t = state.tasks[s.taskKey!];
  if (!t) return { signals: { ...base, filesAffected: 2 }, reasons: [`task ${s.taskKey}`] };
  const read = askSignals([t.task.subject, t.task.description].filter(Boolean).join('\n'));
  // Exploration is not a builder's task: a task always changes something.
  const signals: TaskSignals = { ...read.signals, isExploration: false };
  const reasons = [`task ${t.task.key}`, ...read.reasons.filter((r) => r !== 'a question, no change asked for')];
  if (t.files.length > signals.filesAffected) {
    signals.filesAffected = t.files.length;
    reasons.push(`its earlier attempt changed ${t.files.length} files`);
  }
  const depth = depthOf(state, t.task.key);
  if (depth > 0) {
    signals.dependencyDepth = depth;
    reasons.push(`dependency depth ${depth}`);
  }
  if (t.task.origin === 'merge-conflict') {
    signals.requiresReasoning = true;
    reasons.push('resolves a merge conflict');
  } else if (s.attempt > 1) {
    signals.requiresReasoning = true;
    reasons.push(`attempt ${s.attempt}: the earlier one did not finish`);
  }
  return { signals, reasons };
}

/**
 * The router's view of one run session (seed 003 Req 4.5), from the run's state alone — pure, so
 * the same state always asks the same question: the phase (Robbo's workshop, review and
 * escalations lead; the workshop's goal is still open), the work's breadth (the spec, the files
 * the run touched), a task's own words, dependencies and history, and the round.
 */
export function runSessionSignals(state: RunState, s: SessionToRoute): { signals: TaskSignals; reasons: string[] } {
  const files = Math.max(2, runFiles(state));
  switch (s.purpose) {
    case 'workshop':
      return { signals: { ...base, isTeamLead: true, filesAffected: 2, ambiguity: 'high' }, reasons: [`workshop round ${s.round ?? 1}: the goal is still open`] };
    case 'decompose': {
      const criteria = state.spec?.acceptanceCriteria.length ?? 0;
      return { signals: { ...base, filesAffected: Math.max(2, criteria), ambiguity: 'medium' }, reasons: [`decomposition of a spec with ${criteria} acceptance criteria`] };
    }
    case 'review':
      return { signals: { ...base, isTeamLead: true, filesAffected: files }, reasons: [`final review of ${files} files`] };
    case 'escalation':
      return { signals: { ...base, isTeamLead: true, filesAffected: 2 }, reasons: ['answers an escalation'] };
    case 'qa':
      return { signals: { ...base, filesAffected: files }, reasons: [`QA round ${s.round ?? 1} over ${files} files`] };
    case 'task':
      return taskSignals(state, s);
  }
}

/** The question for one session: its signals, and the operator's pins or, for the run's agent, its definition's model and effort. */
export function sessionRouteRequest(state: RunState, s: SessionToRoute): SessionRouteRequest {
  const { signals, reasons } = runSessionSignals(state, s);
  const started = state.started!;
  if (started.model || started.effort) {
    return { signals, reasons, ...(started.model ? { model: started.model } : {}), ...(started.effort ? { effort: started.effort } : {}), pinnedBy: 'operator' };
  }
  const agent = usesRunAgent(state, s) ? started.agent : undefined;
  if (agent && (agent.model !== 'inherit' || agent.effort)) {
    return { signals, reasons: [...reasons, `agent ${agent.name}`], ...(agent.model !== 'inherit' ? { model: agent.model } : {}), ...(agent.effort ? { effort: agent.effort } : {}), pinnedBy: 'agent' };
  }
  return { signals, reasons };
}

/** The governor's answer as the run records it. */
export function routedSession(decision: RoutingDecision, req: SessionRouteRequest): SessionRouting {
  return {
    model: decision.model,
    tier: decision.tier,
    effort: decision.effort,
    thinkingBudgetTokens: decision.thinkingBudgetTokens,
    reasons: [...req.reasons, ...decision.reasons].slice(0, 30),
    signals: req.signals,
    pinned: Boolean(req.pinnedBy),
    ...(req.pinnedBy ? { pinnedBy: req.pinnedBy } : {}),
  };
}

const tierOf = (model: string): ModelTier => (/haiku/i.test(model) ? 'haiku' : /opus/i.test(model) ? 'opus' : 'sonnet');

/** When the governor cannot answer: the pin as given, else the purpose's default, saying so. */
export function fallbackRouting(purpose: SessionPurpose, req: SessionRouteRequest, why: string): SessionRouting {
  const model = req.model ?? MODEL_FOR[purpose].model;
  const effort = req.effort ?? MODEL_FOR[purpose].effort;
  return {
    model,
    tier: tierOf(model),
    effort,
    thinkingBudgetTokens: THINKING_BUDGET_TOKENS[effort],
    reasons: [...req.reasons, `cost governor did not answer (${why}): ${req.model ? 'the pinned model' : `the ${purpose} default`}`].slice(0, 30),
    signals: req.signals,
    pinned: Boolean(req.pinnedBy),
    ...(req.pinnedBy ? { pinnedBy: req.pinnedBy } : {}),
    fallback: true,
  };
}
