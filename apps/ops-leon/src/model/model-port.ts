/**
 * Leon's one way to ask a model (triage, and Gavin's and Robbo's judgement when a group escalates):
 * a light or a deep model, asked through libs/llm under the cost governor's budgets (may-spend
 * before, record-usage after). Implemented by GovernedModel (model.module.ts).
 */
export interface ModelAsk {
  /** Who is asking: the attribution's persona. */
  persona: 'leon' | 'gavin' | 'robbo';
  /** `triage-light`, `triage-deep`, `escalation-gavin`, …: part of the session id and the simulator's situation. */
  purpose: string;
  groupId: string;
  project: string;
  /** The team whose budgets the call spends from. */
  team: string;
  tier: 'light' | 'deep';
  system: string;
  prompt: string;
  maxTokens: number;
  /** Stable per logical call (e.g. `<groupId>:<transition seq>:triage-light`), so a redelivered event asks the governor once. */
  callId: string;
}

export type ModelAnswer =
  | { status: 'answered'; text: string; model: string; simulated: boolean }
  /** The governor paused or stopped it, or the model could not be reached: the caller falls back to rules. */
  | { status: 'refused'; reason: string; code?: string };

export abstract class ModelPort {
  abstract ask(request: ModelAsk): Promise<ModelAnswer>;
}
