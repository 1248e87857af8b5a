import { Module } from '@nestjs/common';
import { AnnounceCompletionHandler } from './announce-completion/announce-completion.handler';
import { ListAnnouncementsHandler } from './list-announcements/list-announcements.handler';
import { ListTeammatesHandler } from './list-teammates/list-teammates.handler';
import { ReportIdleHandler } from './report-idle/report-idle.handler';
import { RosterReader } from './roster.reader';
import { SpawnTeammateHandler } from './spawn-teammate/spawn-teammate.handler';
import { TeammateInjectionHandler } from './teammate-injection/teammate-injection.handler';

/**
 * Teammates: spawn (registration + spawn spec), idle reports, the completion announce flow, and the
 * roster queries. Decisions go through the team aggregate (TeamsModule's executor).
 */
@Module({
  providers: [RosterReader],
  controllers: [
    SpawnTeammateHandler,
    ReportIdleHandler,
    AnnounceCompletionHandler,
    ListTeammatesHandler,
    TeammateInjectionHandler,
    ListAnnouncementsHandler,
  ],
})
export class MembersModule {}
