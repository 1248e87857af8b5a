import { Module } from '@nestjs/common';

/** Tasks: commands, queries and projections of this feature (see its folder). */
@Module({})
export class TasksModule {}
