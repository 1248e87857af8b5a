import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/** A team the orchestrator has heard of (team-directory.consumer.ts; migrations/0001_team_directory.sql). */
export const TeamDirectoryRow = defineEntity({
  name: 'TeamDirectoryRow',
  tableName: 'team_directory',
  properties: {
    teamId: p.text().primary(),
    name: p.text(),
    leadAgentType: p.text(),
    createdAt: p.datetime(),
    sourceEventId: p.uuid(),
  },
});
export type TeamDirectoryRow = InferEntity<typeof TeamDirectoryRow>;
