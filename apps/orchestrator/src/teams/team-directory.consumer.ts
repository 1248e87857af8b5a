import { Controller, Inject } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { teamCreated, type EventData } from '@headspace/contracts';
import type { ConsumedEvent, EventContext } from '@headspace/messaging';
import { SERVICE_SCHEMA } from '@headspace/platform';

/** Projects `team.created` from the team-manager's stream into `orchestrator.team_directory`. */
@Controller()
export class TeamDirectoryConsumer {
  static readonly durable = 'orchestrator-team-directory';

  constructor(@Inject(SERVICE_SCHEMA) private readonly schema: string) {}

  @EventPattern(teamCreated, { durable: TeamDirectoryConsumer.durable })
  async project(@Payload() event: ConsumedEvent<EventData<typeof teamCreated>>, @Ctx() { tx }: EventContext): Promise<void> {
    const team = event.data;
    await tx.query(
      `INSERT INTO "${this.schema}".team_directory (team_id, name, lead_agent_type, created_at, source_event_id)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (team_id) DO NOTHING`,
      [team.teamId, team.name, team.leadAgentType, team.createdAt, event.eventId],
    );
  }
}
