import { Module } from '@nestjs/common';

/** Approvals: commands, queries and projections of this feature (see its folder). */
@Module({})
export class ApprovalsModule {}
