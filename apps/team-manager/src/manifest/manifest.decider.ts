import { isDeepStrictEqual } from 'node:util';
import type { EventData, manifestImported, TeamManifest } from '@headspace/contracts';
import type { Decider } from '@headspace/event-store';

export type ManifestEvent = { type: 'manifest.imported'; data: EventData<typeof manifestImported> };
export type ManifestState = { manifest: TeamManifest | null };
export type ManifestCommand = { type: 'import-manifest'; manifest: TeamManifest; now: string };

/** A team's manifest stream: an import that changes nothing appends nothing. */
export const manifestDecider: Decider<ManifestCommand, ManifestState, ManifestEvent> = {
  initialState: () => ({ manifest: null }),
  decide(command, state) {
    if (state.manifest && isDeepStrictEqual(state.manifest, command.manifest)) return [];
    return [{ type: 'manifest.imported', data: { team: command.manifest.team, manifest: command.manifest, importedAt: command.now } }];
  },
  evolve(state, event) {
    return event.type === 'manifest.imported' ? { manifest: event.data.manifest } : state;
  },
};
