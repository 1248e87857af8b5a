import type { EvalGrade, EvalGrader } from '@headspace/contracts';
import type { BudgetPort, ModelPort } from '../../sessions/run-session/session-ports';

type RubricGrader = Extract<EvalGrader, { type: 'rubric' }>;

/** The simulator picks its scenario by these lines; a real model reads them as plain context. */
const SYSTEM = [
  'You grade the work of an AI coding agent against a rubric. Read the task, the rubric and what the agent answered and changed.',
  'Answer with JSON only: {"score": <a number from 0 to 1>, "reason": "<one or two sentences>"}.',
  '',
  'Persona: eval-judge',
  'Situation: eval-rubric',
].join('\n');
const MAX_OUTPUT_TOKENS = 1_024;
/** What the judge reads of the agent's answer and of each changed file. */
const ANSWER_CHARS = 8_000;

/** `{"score": …, "reason": …}` anywhere in the reply (a model may wrap it in prose or a fence); the score is clamped to 0..1. */
export function parseRubricVerdict(text: string): { score: number; reason: string } {
  const candidates = text.match(/\{[^{}]*"score"[^{}]*\}/g) ?? [];
  for (const candidate of candidates.reverse()) {
    try {
      const parsed = JSON.parse(candidate) as { score?: unknown; reason?: unknown };
      if (typeof parsed.score === 'number' && Number.isFinite(parsed.score)) {
        return { score: Math.min(1, Math.max(0, parsed.score)), reason: typeof parsed.reason === 'string' ? parsed.reason.slice(0, 2_000) : '' };
      }
    } catch {
      // not this one
    }
  }
  throw new Error(`the judge did not answer {"score": …}: ${text.slice(0, 200)}`);
}

export interface RubricSubject {
  /** Keys the governor's reservation and usage record: one per task and grader. */
  key: string;
  prompt: string;
  answer: string;
  filesChanged: string[];
}

/**
 * A rubric grader: one call of a light model (HS_HOOK_MODEL unless the run pins one) asked of and
 * settled with the cost governor like a session turn, answering a scored JSON verdict. A judge that
 * cannot answer (refused by the governor, no verdict) grades the task 0 with the reason, rather than
 * holding the run forever.
 */
export class RubricJudge {
  constructor(
    private readonly model: ModelPort,
    private readonly budget: BudgetPort,
    private readonly judgeModel: string,
  ) {}

  async grade(grader: RubricGrader, subject: RubricSubject): Promise<EvalGrade> {
    const fail = (detail: string): EvalGrade => ({ type: 'rubric', weight: grader.weight, score: 0, passed: false, detail: detail.slice(0, 9_000) });
    const text = [
      `Task:\n${subject.prompt}`,
      `Rubric:\n${grader.rubric}`,
      `Files changed: ${subject.filesChanged.join(', ') || 'none'}`,
      `The agent's answer:\n${subject.answer.slice(0, ANSWER_CHARS)}`,
    ].join('\n\n');
    const messages = [{ role: 'user' as const, content: [{ type: 'text', text }] }];
    const budget = await this.budget.maySpend({ model: this.judgeModel, estimatedInputTokens: Math.ceil(text.length / 4), maxOutputTokens: MAX_OUTPUT_TOKENS, turn: 0, key: subject.key });
    if (budget.decision !== 'allowed' && budget.decision !== 'downgraded') return fail(`the cost governor ${budget.decision} the rubric judge: ${budget.reason}`);
    let reply;
    try {
      reply = await this.model.call({ model: budget.model, system: [{ type: 'text', text: SYSTEM }], tools: [], messages, maxTokens: MAX_OUTPUT_TOKENS, effort: 'quick' });
    } catch (error) {
      if (budget.reservationId) await this.budget.release({ reservationId: budget.reservationId, turn: 0, key: subject.key, reason: `rubric judge failed: ${(error as Error).message}` }).catch(() => undefined);
      throw error;
    }
    await this.budget.recordUsage({ ...(budget.reservationId ? { reservationId: budget.reservationId } : {}), model: reply.model, usage: reply.usage, turn: 0, key: subject.key });
    const answer = reply.content.filter((b) => b.type === 'text').map((b) => String(b.text)).join('\n');
    try {
      const verdict = parseRubricVerdict(answer);
      const passed = verdict.score >= grader.passScore;
      return { type: 'rubric', weight: grader.weight, score: verdict.score, passed, detail: `score ${verdict.score} (pass at ${grader.passScore}) by ${reply.model}: ${verdict.reason}` };
    } catch (error) {
      return fail((error as Error).message);
    }
  }
}
