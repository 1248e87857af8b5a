import {
  ErrorCodes,
  HeadspaceError,
  type EventData,
  type SessionUsage,
  type sessionBudgetDecided,
  type sessionCompacted,
  type sessionEnded,
  type sessionExitReasons,
  type sessionHandedOff,
  type sessionModelCalled,
  type sessionReflected,
  type sessionStarted,
  type sessionToolCalled,
} from '@headspace/contracts';
import { decideByType, type Decider } from '@headspace/event-store';

export type SessionEvent =
  | { type: 'session.started'; data: EventData<typeof sessionStarted> }
  | { type: 'session.model-called'; data: EventData<typeof sessionModelCalled> }
  | { type: 'session.tool-called'; data: EventData<typeof sessionToolCalled> }
  | { type: 'session.budget-decided'; data: EventData<typeof sessionBudgetDecided> }
  | { type: 'session.handed-off'; data: EventData<typeof sessionHandedOff> }
  | { type: 'session.reflected'; data: EventData<typeof sessionReflected> }
  | { type: 'session.ended'; data: EventData<typeof sessionEnded> }
  | { type: 'session.compacted'; data: EventData<typeof sessionCompacted> };

type Started = EventData<typeof sessionStarted>;

export interface SessionState {
  status: 'none' | 'running' | 'ended';
  started?: Started;
  /** Model calls recorded so far (= the number of the last turn). */
  turns: number;
  model?: string;
  usage: SessionUsage;
  /** tool_use ids the last model call asked for, by id → tool name, not yet answered. */
  pendingToolUses: Record<string, string>;
  /** Every answered tool_use id: a resumed session replays these results instead of re-running them. */
  completedToolUses: Record<string, { content: string; isError: boolean }>;
  toolsUsed: string[];
  filesModified: string[];
  handedOff: boolean;
  reflected: boolean;
  /** The last turn a compaction covered (0: never compacted). */
  compactedThroughTurn: number;
  compactions: number;
}

export type SessionCommand =
  | ({ type: 'start-session'; now: string } & Omit<Started, 'startedAt'>)
  | ({ type: 'record-model-call'; now: string } & Omit<EventData<typeof sessionModelCalled>, 'at'>)
  | ({ type: 'record-tool-call'; now: string } & Omit<EventData<typeof sessionToolCalled>, 'at'>)
  | ({ type: 'record-budget-decision'; now: string } & Omit<EventData<typeof sessionBudgetDecided>, 'at'>)
  | ({ type: 'record-handoff'; now: string } & Omit<EventData<typeof sessionHandedOff>, 'at'>)
  | ({ type: 'record-reflection'; now: string } & Omit<EventData<typeof sessionReflected>, 'at'>)
  | ({ type: 'record-compaction'; now: string } & Omit<EventData<typeof sessionCompacted>, 'at'>)
  | { type: 'end-session'; sessionId: string; exitReason: (typeof sessionExitReasons)[number]; summary: string; error?: string; now: string };

const zeroUsage = (): SessionUsage => ({ inputTokens: 0, outputTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, cacheReadTokens: 0 });

const addUsage = (a: SessionUsage, b: SessionUsage): SessionUsage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  cacheWrite5mTokens: a.cacheWrite5mTokens + b.cacheWrite5mTokens,
  cacheWrite1hTokens: a.cacheWrite1hTokens + b.cacheWrite1hTokens,
  cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
});

function requireRunning(state: SessionState, sessionId: string): void {
  if (state.status === 'none') throw new HeadspaceError(ErrorCodes.sessionNotFound, `No session "${sessionId}"`, { field: 'sessionId' });
  if (state.status === 'ended') throw new HeadspaceError(ErrorCodes.sessionAlreadyEnded, `Session "${sessionId}" has ended`, { field: 'sessionId' });
}

type Decide<T extends SessionCommand['type']> = (command: Extract<SessionCommand, { type: T }>, state: SessionState) => SessionEvent[];

/** The command's fields as the event's data, stamped with its time. */
const recorded = <C extends { type: string; now: string }>({ type: _t, now, ...data }: C) => ({ ...data, at: now });

/** A session starts once; starting it again decides nothing. */
const startSession: Decide<'start-session'> = ({ type: _t, now, ...data }, state) => (state.status !== 'none' ? [] : [{ type: 'session.started', data: { ...data, startedAt: now } }]);

/** Turns are recorded once each, in order, and only once every tool call of the last turn is answered. */
const recordModelCall: Decide<'record-model-call'> = (command, state) => {
  if (state.status !== 'none' && command.turn <= state.turns) return [];
  requireRunning(state, command.sessionId);
  if (command.turn !== state.turns + 1) {
    throw new HeadspaceError(ErrorCodes.sessionTurnOutOfOrder, `Turn ${command.turn} recorded after turn ${state.turns}`, { field: 'turn' });
  }
  if (Object.keys(state.pendingToolUses).length > 0) {
    throw new HeadspaceError(ErrorCodes.sessionTurnOutOfOrder, `Turn ${command.turn} recorded while tool calls of turn ${state.turns} are unanswered`, { field: 'turn' });
  }
  return [{ type: 'session.model-called', data: recorded(command) }];
};

/** A tool result answers a tool_use the model asked for, once: a resumed session never repeats its side effect. */
const recordToolCall: Decide<'record-tool-call'> = (command, state) => {
  if (state.completedToolUses[command.toolUseId]) return [];
  requireRunning(state, command.sessionId);
  if (!state.pendingToolUses[command.toolUseId]) {
    throw new HeadspaceError(ErrorCodes.sessionUnknownToolUse, `The model did not ask for tool use "${command.toolUseId}"`, { field: 'toolUseId' });
  }
  return [{ type: 'session.tool-called', data: recorded(command) }];
};

/** Every budget decision of a running session is recorded. */
const recordBudgetDecision: Decide<'record-budget-decision'> = (command, state) => {
  requireRunning(state, command.sessionId);
  return [{ type: 'session.budget-decided', data: recorded(command) }];
};

/** A running session hands off once. */
const recordHandoff: Decide<'record-handoff'> = (command, state) => {
  if (state.handedOff) return [];
  requireRunning(state, command.sessionId);
  return [{ type: 'session.handed-off', data: recorded(command) }];
};

/** A running session reflects once. */
const recordReflection: Decide<'record-reflection'> = (command, state) => {
  if (state.reflected) return [];
  requireRunning(state, command.sessionId);
  return [{ type: 'session.reflected', data: recorded(command) }];
};

/** A running session compacts at most once per turn, only after that turn's tool calls are all answered. */
const recordCompaction: Decide<'record-compaction'> = (command, state) => {
  if (state.status !== 'none' && command.turn <= state.compactedThroughTurn) return [];
  requireRunning(state, command.sessionId);
  if (command.turn !== state.turns || Object.keys(state.pendingToolUses).length > 0) {
    throw new HeadspaceError(ErrorCodes.sessionTurnOutOfOrder, `Compaction through turn ${command.turn} recorded at turn ${state.turns} with unanswered tool calls or out of order`, { field: 'turn' });
  }
  return [{ type: 'session.compacted', data: recorded(command) }];
};

/** A running session ends once, with the sums of its turns, usage, tools and files. */
const endSession: Decide<'end-session'> = (command, state) => {
  if (state.status === 'ended') return [];
  requireRunning(state, command.sessionId);
  return [
    {
      type: 'session.ended',
      data: {
        sessionId: command.sessionId,
        exitReason: command.exitReason,
        summary: command.summary,
        turns: state.turns,
        usage: state.usage,
        toolsUsed: state.toolsUsed,
        filesModified: state.filesModified,
        ...(command.error ? { error: command.error } : {}),
        at: command.now,
      },
    },
  ];
};

/**
 * Decisions are idempotent where a resumed orchestrator may repeat them: recording a turn or a tool
 * result that is already in the stream appends nothing, so a crash between acting and recording
 * cannot double-count a turn or a tool call.
 */
const decide = decideByType<SessionCommand, SessionState, SessionEvent>({
  'start-session': startSession,
  'record-model-call': recordModelCall,
  'record-tool-call': recordToolCall,
  'record-budget-decision': recordBudgetDecision,
  'record-handoff': recordHandoff,
  'record-reflection': recordReflection,
  'record-compaction': recordCompaction,
  'end-session': endSession,
});

function toolUsesOf(content: Array<Record<string, unknown>>): Record<string, string> {
  const pending: Record<string, string> = {};
  for (const block of content) if (block.type === 'tool_use') pending[String(block.id)] = String(block.name);
  return pending;
}

const union = (list: string[], more: string[]) => (more.every((x) => list.includes(x)) ? list : [...new Set([...list, ...more])]);

function evolve(state: SessionState, event: SessionEvent): SessionState {
  switch (event.type) {
    case 'session.started':
      return { ...state, status: 'running', started: event.data, model: event.data.model };
    case 'session.model-called':
      return {
        ...state,
        turns: event.data.turn,
        model: event.data.model,
        usage: addUsage(state.usage, event.data.usage),
        pendingToolUses: toolUsesOf(event.data.content),
      };
    case 'session.tool-called': {
      const { [event.data.toolUseId]: _answered, ...pending } = state.pendingToolUses;
      return {
        ...state,
        pendingToolUses: pending,
        completedToolUses: { ...state.completedToolUses, [event.data.toolUseId]: { content: event.data.content, isError: event.data.isError } },
        toolsUsed: union(state.toolsUsed, [event.data.tool]),
        filesModified: union(state.filesModified, event.data.filesModified),
      };
    }
    case 'session.budget-decided':
      return { ...state, model: event.data.model };
    case 'session.handed-off':
      return { ...state, handedOff: true };
    case 'session.reflected':
      return { ...state, reflected: true };
    case 'session.ended':
      return { ...state, status: 'ended', pendingToolUses: {} };
    case 'session.compacted':
      return { ...state, usage: addUsage(state.usage, event.data.usage), compactedThroughTurn: event.data.turn, compactions: state.compactions + 1 };
  }
}

const initialState = (): SessionState => ({
  status: 'none',
  turns: 0,
  usage: zeroUsage(),
  pendingToolUses: {},
  completedToolUses: {},
  toolsUsed: [],
  filesModified: [],
  handedOff: false,
  reflected: false,
  compactedThroughTurn: 0,
  compactions: 0,
});

export const agentSessionDecider: Decider<SessionCommand, SessionState, SessionEvent> = { decide, evolve, initialState };
