import { ErrorCodes, HeadspaceError, type EventData, type learningRecorded, type learningReinforced, type learningsGiven, type learningWeakened } from '@headspace/contracts';
import { decideByType, evolveByType, type Decider } from '@headspace/event-store';

type Recorded = EventData<typeof learningRecorded>;
type Reinforced = EventData<typeof learningReinforced>;
type Weakened = EventData<typeof learningWeakened>;
type Given = EventData<typeof learningsGiven>;

export type LearningEvent =
  | { type: 'learning.recorded'; data: Recorded }
  | { type: 'learning.reinforced'; data: Reinforced }
  | { type: 'learning.weakened'; data: Weakened };

export type LearningCommand =
  | ({ type: 'record-learning'; now: string } & Omit<Recorded, 'recordedAt'>)
  | { type: 'reinforce-learning'; learningId: string; sessionId: string; now: string }
  | { type: 'weaken-learning'; learningId: string; sessionId: string; now: string };

export interface LearningState {
  recorded?: Recorded;
  confidence: number;
  /** Sessions whose outcome already moved the confidence: each counts once. */
  outcomes: Record<string, 'reinforced' | 'weakened'>;
  usedAt?: string;
}

/**
 * How far an outcome moves confidence: a success closes a fifth of the gap to 1, a failure takes
 * away two fifths — a learning that misleads should sink faster than a good one rises, and neither
 * reaches 0 or 1, so one later outcome can still move it.
 */
export const REINFORCE_RATE = 0.2;
export const WEAKEN_RATE = 0.4;
const round = (n: number) => Math.round(n * 10_000) / 10_000;
export const reinforced = (c: number) => round(c + (1 - c) * REINFORCE_RATE);
export const weakened = (c: number) => round(c * (1 - WEAKEN_RATE));

const requireLearning = (state: LearningState, learningId: string): Recorded => {
  if (!state.recorded) throw new HeadspaceError(ErrorCodes.learningNotFound, `No learning "${learningId}"`, { field: 'learningId' });
  return state.recorded;
};

type Decide<T extends LearningCommand['type']> = (command: Extract<LearningCommand, { type: T }>, state: LearningState) => LearningEvent[];

/** Recorded once: a retried record (the same reflection applied again) records nothing new. */
const record: Decide<'record-learning'> = ({ type: _t, now, ...data }, state) => (state.recorded ? [] : [{ type: 'learning.recorded', data: { ...data, recordedAt: now } }]);

const reinforce: Decide<'reinforce-learning'> = ({ learningId, sessionId, now }, state) => {
  requireLearning(state, learningId);
  return state.outcomes[sessionId] ? [] : [{ type: 'learning.reinforced', data: { learningId, sessionId, confidence: reinforced(state.confidence), at: now } }];
};

const weaken: Decide<'weaken-learning'> = ({ learningId, sessionId, now }, state) => {
  requireLearning(state, learningId);
  return state.outcomes[sessionId] ? [] : [{ type: 'learning.weakened', data: { learningId, sessionId, confidence: weakened(state.confidence), at: now } }];
};

export const learningDecider: Decider<LearningCommand, LearningState, LearningEvent> = {
  initialState: () => ({ confidence: 0, outcomes: {} }),
  decide: decideByType<LearningCommand, LearningState, LearningEvent>({ 'record-learning': record, 'reinforce-learning': reinforce, 'weaken-learning': weaken }),
  evolve: evolveByType<LearningState, LearningEvent>({
    'learning.recorded': (state, { data }) => ({ ...state, recorded: data, confidence: data.confidence }),
    'learning.reinforced': (state, { data }) => ({ ...state, confidence: data.confidence, outcomes: { ...state.outcomes, [data.sessionId]: 'reinforced' }, usedAt: data.at }),
    'learning.weakened': (state, { data }) => ({ ...state, confidence: data.confidence, outcomes: { ...state.outcomes, [data.sessionId]: 'weakened' }, usedAt: data.at }),
  }),
};

// ---- the learnings given to one session ---------------------------------------------------------

export type GivenEvent = { type: 'learning.given'; data: Given };
export type GiveCommand = { type: 'give-learnings'; now: string } & Omit<Given, 'at'>;
export interface GivenState {
  given?: Given;
}

/** What a session was given is recorded once, at its first prompt; the outcome decides on exactly that list. */
export const givenDecider: Decider<GiveCommand, GivenState, GivenEvent> = {
  initialState: () => ({}),
  decide: ({ type: _t, now, ...data }, state) => (state.given ? [] : [{ type: 'learning.given', data: { ...data, at: now } }]),
  evolve: (state, { data }) => ({ ...state, given: data }),
};
