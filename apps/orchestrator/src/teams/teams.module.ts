import { Module } from '@nestjs/common';
import { ListKnownTeamsHandler } from './list-known-teams.handler';
import { TeamDirectoryConsumer } from './team-directory.consumer';

@Module({ controllers: [TeamDirectoryConsumer, ListKnownTeamsHandler] })
export class TeamsModule {}
