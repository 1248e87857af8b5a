import { Module } from '@nestjs/common';
import { CreateTeamHandler } from './create-team/create-team.handler';

@Module({ providers: [CreateTeamHandler] })
export class TeamsModule {}
