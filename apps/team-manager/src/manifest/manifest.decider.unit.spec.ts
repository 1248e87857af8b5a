import { describe, it } from 'vitest';
import { DeciderSpec } from '@headspace/event-store';
import { manifestDecider } from './manifest.decider';
import { parseManifestYaml } from './manifest-yaml';
import { SEED_MANIFEST } from './seed-manifest.fixture';

const now = '2026-11-22T10:00:00.000Z';
const manifest = parseManifestYaml(SEED_MANIFEST);

describe('manifest decider', () => {
  it('the first import records the manifest', () => {
    DeciderSpec.for(manifestDecider)
      .given([])
      .when({ type: 'import-manifest', manifest, now })
      .then([{ type: 'manifest.imported', data: { team: 'project-slug', manifest, importedAt: now } }]);
  });

  it('re-importing the same manifest records nothing; a changed one is recorded', () => {
    const imported = { type: 'manifest.imported' as const, data: { team: 'project-slug', manifest, importedAt: now } };
    DeciderSpec.for(manifestDecider).given([imported]).when({ type: 'import-manifest', manifest, now }).then([]);
    const changed = { ...manifest, description: 'Another line' };
    DeciderSpec.for(manifestDecider)
      .given([imported])
      .when({ type: 'import-manifest', manifest: changed, now })
      .then([{ type: 'manifest.imported', data: { team: 'project-slug', manifest: changed, importedAt: now } }]);
  });
});
