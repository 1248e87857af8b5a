import { ErrorCodes, HeadspaceError, type askCompleted, type askFailed, type askSessionStarted, type askStarted, type EventData } from '@headspace/contracts';
import { decideByType, evolveByType, type Decider } from '@headspace/event-store';

type Started = EventData<typeof askStarted>;
type SessionStarted = EventData<typeof askSessionStarted>;
type Completed = EventData<typeof askCompleted>;
type Failed = EventData<typeof askFailed>;

export type AskEvent =
  | { type: 'ask.started'; data: Started }
  | { type: 'ask.session-started'; data: SessionStarted }
  | { type: 'ask.completed'; data: Completed }
  | { type: 'ask.failed'; data: Failed };

export type AskCommand =
  | ({ type: 'start-ask'; now: string } & Omit<Started, 'startedAt'>)
  | ({ type: 'record-session-started'; now: string } & Omit<SessionStarted, 'at'>)
  | ({ type: 'complete-ask'; now: string } & Omit<Completed, 'at'>)
  | ({ type: 'fail-ask'; now: string } & Omit<Failed, 'at'>);

export interface AskState {
  status: 'none' | 'running' | 'completed' | 'failed';
  started?: Started;
  session?: SessionStarted;
  completed?: Completed;
  failed?: Failed;
}

const requireAsk = (state: AskState, askId: string): Started => {
  if (!state.started) throw new HeadspaceError(ErrorCodes.askNotFound, `No ask "${askId}"`, { field: 'askId' });
  return state.started;
};

type Decide<T extends AskCommand['type']> = (command: Extract<AskCommand, { type: T }>, state: AskState) => AskEvent[];

/** An ask starts once: a retried start records nothing new. */
const startAsk: Decide<'start-ask'> = ({ type: _t, now, ...data }, state) => (state.status === 'none' ? [{ type: 'ask.started', data: { ...data, startedAt: now } }] : []);

/** Its one session is recorded once, while the ask runs. */
const recordSessionStarted: Decide<'record-session-started'> = ({ type: _t, now, ...data }, state) => {
  requireAsk(state, data.askId);
  if (state.status !== 'running' || state.session) return [];
  return [{ type: 'ask.session-started', data: { ...data, at: now } }];
};

/** Completed once, and only from the session it started (a stray outcome changes nothing). */
const completeAsk: Decide<'complete-ask'> = ({ type: _t, now, ...data }, state) => {
  requireAsk(state, data.askId);
  if (state.status !== 'running' || state.session?.sessionId !== data.sessionId) return [];
  return [{ type: 'ask.completed', data: { ...data, at: now } }];
};

/** A running ask fails once; an ended one stays as it ended. */
const failAsk: Decide<'fail-ask'> = ({ type: _t, now, ...data }, state) => {
  requireAsk(state, data.askId);
  return state.status === 'running' ? [{ type: 'ask.failed', data: { ...data, at: now } }] : [];
};

export const askDecider: Decider<AskCommand, AskState, AskEvent> = {
  initialState: () => ({ status: 'none' }),
  decide: decideByType<AskCommand, AskState, AskEvent>({ 'start-ask': startAsk, 'record-session-started': recordSessionStarted, 'complete-ask': completeAsk, 'fail-ask': failAsk }),
  evolve: evolveByType<AskState, AskEvent>({
    'ask.started': (state, { data }) => ({ ...state, status: 'running', started: data }),
    'ask.session-started': (state, { data }) => ({ ...state, session: data }),
    'ask.completed': (state, { data }) => ({ ...state, status: 'completed', completed: data }),
    'ask.failed': (state, { data }) => ({ ...state, status: 'failed', failed: data }),
  }),
};
