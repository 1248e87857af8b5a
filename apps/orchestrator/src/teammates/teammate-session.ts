import { DEFAULT_AGENT_RUNTIME, type EventData, type sessionEnded, type teammateSpawned } from '@headspace/contracts';
import { join } from 'node:path';
import type { SessionStart } from '../sessions/session-supervisor';

type Spawned = EventData<typeof teammateSpawned>;
type Ended = EventData<typeof sessionEnded>;

/** The `Situation:` line of a teammate's system prompt (and the simulator's scenario key). */
export const TEAMMATE_SITUATION = 'teammate';

/** The model a teammate runs on when neither the spawn, its parent nor its team names one. */
export const DEFAULT_TEAMMATE_MODEL = 'sonnet';

const SESSION_KEY_UUID = /:teammate:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
const TEAMMATE_SESSION_ID = /^teammate-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A teammate's one session: `teammate-<uuid of its session key>` (`agent:{agentId}:teammate:{uuid}`).
 * Derived, never drawn: the spawn delivered twice, or handled again after a crash, names the same
 * session, and its termination (which carries only the session key) finds it.
 */
export function teammateSessionIdFor(sessionKey: string): string {
  const uuid = SESSION_KEY_UUID.exec(sessionKey)?.[1];
  if (!uuid) throw new Error(`not a teammate session key: ${sessionKey}`);
  return `teammate-${uuid}`;
}

export const isTeammateSession = (sessionId: string): boolean => TEAMMATE_SESSION_ID.test(sessionId);

/** `team-<name>` → `<name>`: teammate events are recorded on their team's stream. */
export function teamOfStream(streamId: string): string {
  if (!streamId.startsWith('team-')) throw new Error(`not a team stream: ${streamId}`);
  return streamId.slice('team-'.length);
}

/**
 * The directory every teammate of a team works in: `<HS_WORKSPACES_DIR>/.teams/<team>` (a dot: no
 * run id can take the name). Shared, not a worktree each: teammates coordinate their edits with file
 * locks on the paths of this one tree (seed 003 Req 6.4), see ADR 0038.
 */
export const teammateWorkspace = (workspacesDir: string, team: string): string => join(workspacesDir, '.teams', team);

/** The first user message: the team state it is told, the spawn's own prompt, and how its session ends. */
export function teammatePrompt(injection: string, initialPrompt: string): string {
  return [
    injection,
    initialPrompt,
    [
      'You work in the team’s shared workspace, the current directory: take the lock on a file (lock_file) before you edit it, and complete the task you claimed (complete_task) when it is done — that gives your locks back.',
      'When you have nothing left to do, say in a few sentences what you did and end with your reflection JSON (as the reflection protocol says): your completion is then announced to the lead and you are reported idle.',
    ].join(' '),
  ].join('\n\n');
}

/** How the orchestrator starts the session of a spawned teammate. */
export function teammateSessionStart(team: string, spawned: Spawned, opts: { prompt: string; workspace: string; simulated: boolean }): SessionStart {
  return {
    sessionId: teammateSessionIdFor(spawned.sessionKey),
    team,
    // Its name is its identity on the team: its mailbox, the owner of its claims, the holder of its locks.
    persona: spawned.name,
    kind: 'task',
    model: spawned.model ?? DEFAULT_TEAMMATE_MODEL,
    effort: 'standard',
    runtime: DEFAULT_AGENT_RUNTIME,
    simulated: opts.simulated,
    prompt: opts.prompt,
    workspace: opts.workspace,
    situation: TEAMMATE_SITUATION,
  };
}

/** What ending a session for a teammate's termination records (the session stops; nothing is lost: its stream holds every step). */
export function stoppedSummary(reason: string): string {
  return `Stopped: the teammate was terminated (${reason})`;
}

export interface EndReports {
  announce: { outcome: 'completed' | 'failed'; summary: string };
  idle: { summary: string };
}

/**
 * What a teammate reports when its session ends by itself: its completion (to the lead) and that it
 * went idle. None when the session was stopped because the teammate was terminated: a terminated
 * teammate reports nothing.
 */
export function endReportsFor(ended: Ended): EndReports | undefined {
  if (ended.exitReason === 'cancelled') return undefined;
  const outcome = ended.exitReason === 'completed' ? 'completed' : 'failed';
  const said = ended.summary.trim() || (outcome === 'completed' ? 'Done.' : 'The session ended without a summary.');
  const summary = outcome === 'completed' ? said : `Session ended (${ended.exitReason}): ${ended.error ?? said}`;
  return { announce: { outcome, summary: clip(summary, 2_000) }, idle: { summary: clip(summary, 500) } };
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
