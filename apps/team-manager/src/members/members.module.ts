import { Module } from '@nestjs/common';

/** Members: commands, queries and projections of this feature (see its folder). */
@Module({})
export class MembersModule {}
