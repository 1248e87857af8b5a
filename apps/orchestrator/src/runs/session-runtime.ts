import { DEFAULT_AGENT_RUNTIME, ErrorCodes, exportManifest, HeadspaceError, listPersonas, type AgentRuntime } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import type { NatsConnection } from '@nats-io/nats-core';

/** Where a session's runtime may be named, most specific first. */
export interface RuntimeChoices {
  /** The run's `runtime` (every session of the run). */
  run?: AgentRuntime;
  /** The persona's team-manifest entry (`runtime`, else the manifest's `defaults.runtime`). */
  member?: AgentRuntime;
  /** The persona's own default (personas.yaml `runtime`). */
  persona?: AgentRuntime;
}

/** The run's choice, else the member's, else the persona's default, else the built-in runtime. */
export function chooseRuntime(choices: RuntimeChoices): AgentRuntime {
  return choices.run ?? choices.member ?? choices.persona ?? DEFAULT_AGENT_RUNTIME;
}

/** Reads the member's and the persona's runtime from the team-manager (only when the run names none). */
export class SessionRuntimes {
  constructor(private readonly nc: NatsConnection) {}

  async of(s: { team: string; persona: string; runtime?: AgentRuntime }): Promise<AgentRuntime> {
    if (s.runtime) return s.runtime;
    const [member, persona] = await Promise.all([this.member(s.team, s.persona), this.persona(s.persona)]);
    return chooseRuntime({ member, persona });
  }

  private async member(team: string, persona: string): Promise<AgentRuntime | undefined> {
    try {
      return (await request(this.nc, exportManifest, { team })).members.find((m) => m.name === persona)?.runtime;
    } catch (error) {
      if (error instanceof HeadspaceError && error.code === ErrorCodes.manifestNotFound) return undefined;
      throw error;
    }
  }

  private async persona(persona: string): Promise<AgentRuntime | undefined> {
    return (await request(this.nc, listPersonas, {})).personas.find((p) => p.personaId === persona)?.runtime;
  }
}
