import { Module } from '@nestjs/common';

/** Personas: commands, queries and projections of this feature (see its folder). */
@Module({})
export class PersonasModule {}
