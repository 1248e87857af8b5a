import { Module } from '@nestjs/common';

/** Manifest: commands, queries and projections of this feature (see its folder). */
@Module({})
export class ManifestModule {}
