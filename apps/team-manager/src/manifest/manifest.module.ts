import { Module } from '@nestjs/common';
import { ExportManifestHandler } from './export-manifest/export-manifest.handler';
import { ImportManifestHandler } from './import-manifest/import-manifest.handler';

/** Team manifest (seed 001 `team.yaml`): import and export, one stream per team. */
@Module({ controllers: [ImportManifestHandler, ExportManifestHandler] })
export class ManifestModule {}
