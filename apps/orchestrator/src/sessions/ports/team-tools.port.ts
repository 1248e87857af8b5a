import type { LockChecker, TeamToolsPort } from '@headspace/agent-runtime';

/** The team protocol a session's team tools talk to, and the lock checker behind `owns`, for one team. */
export type TeamToolsFor = (team: string) => TeamToolsPort & LockChecker;

/** Provides a TeamToolsFor; SessionsModule binds it to NatsTeamTools (the team-manager over NATS). */
export const TEAM_TOOLS_PORT = Symbol('TEAM_TOOLS_PORT');
