import {
  ErrorCodes,
  HeadspaceError,
  type EventData,
  projectCreated,
  projectIngestKeyCreated,
  projectIngestKeyRevoked,
  projectRegistered,
  projectUpdated,
} from '@headspace/contracts';
import { decideByType, evolveByType, type Decider } from '@headspace/event-store';

type Ev<D> = D extends { type: infer T } ? { type: T; data: EventData<D> } : never;
export type ProjectEvent = Ev<typeof projectRegistered> | Ev<typeof projectCreated> | Ev<typeof projectUpdated> | Ev<typeof projectIngestKeyCreated> | Ev<typeof projectIngestKeyRevoked>;

export interface ProjectSettings {
  displayName: string;
  repository: string;
  trusted: boolean;
  environments: string[];
  /** The team that approves and runs the project's fixes; none: its groups escalate to the operator. */
  team?: string;
  testCommand: string;
  verifyWindowSeconds: number;
}

/** What a project created before the remediation settings existed runs with. */
export const REMEDIATION_DEFAULTS = { testCommand: 'npm test', verifyWindowSeconds: 3_600 } as const;

const remediationOf = (d: { team?: string; testCommand?: string; verifyWindowSeconds?: number }) => ({
  ...(d.team ? { team: d.team } : {}),
  testCommand: d.testCommand ?? REMEDIATION_DEFAULTS.testCommand,
  verifyWindowSeconds: d.verifyWindowSeconds ?? REMEDIATION_DEFAULTS.verifyWindowSeconds,
});

// ---- the registry: names and numeric ids, one turn per creation ------------------------------

export interface Registry {
  /** name → numeric id */
  ids: Record<string, string>;
  count: number;
}

export type RegistryCommand = { type: 'create'; project: string; createdBy: string; now: string } & ProjectSettings;

/**
 * A project is created on the registry stream (its name must be new; its id is the next number)
 * and its own stream starts with `project.created` (routed there in the same transaction).
 */
export const registryDecider: Decider<RegistryCommand, Registry, ProjectEvent> = {
  initialState: () => ({ ids: {}, count: 0 }),
  decide: decideByType<RegistryCommand, Registry, ProjectEvent>({
    create: (c, registry) => {
      if (registry.ids[c.project]) {
        throw new HeadspaceError(ErrorCodes.opsProjectAlreadyExists, `A project named "${c.project}" exists`, { field: 'project' });
      }
      const projectId = String(registry.count + 1);
      const { type: _type, now, ...rest } = c;
      return [
        { type: 'project.registered', data: { project: c.project, projectId, at: now } },
        { type: 'project.created', data: { ...rest, projectId, at: now } },
      ];
    },
  }),
  evolve: evolveByType<Registry, ProjectEvent>({
    'project.registered': (r, e) => ({ ids: { ...r.ids, [e.data.project]: e.data.projectId }, count: r.count + 1 }),
  }),
};

// ---- one project: settings and ingest keys ---------------------------------------------------

export interface IngestKeyState {
  keyHash: string;
  revoked: boolean;
}

export type ProjectState =
  | { status: 'none' }
  | ({ status: 'active'; project: string; projectId: string; keys: Record<string, IngestKeyState> } & ProjectSettings);
export type ActiveProject = Extract<ProjectState, { status: 'active' }>;

export type ProjectCommand =
  | ({ type: 'update'; updatedBy: string; now: string } & Partial<ProjectSettings>)
  | { type: 'create-key'; keyId: string; keyHash: string; hint: string; label: string; createdBy: string; now: string }
  | { type: 'revoke-key'; keyId: string; reason?: string; revokedBy: string; now: string };

export function mustExist(state: ProjectState, project: string): ActiveProject {
  if (state.status === 'none') throw new HeadspaceError(ErrorCodes.opsProjectNotFound, `No project "${project}"`, { field: 'project' });
  return state;
}

/** True when `keyHash` is one of the project's keys and not revoked: a key can only ingest, into its own project. */
export const acceptsKey = (state: ProjectState, keyHash: string) =>
  state.status === 'active' && Object.values(state.keys).some((key) => !key.revoked && key.keyHash === keyHash);

export const projectDecider: Decider<ProjectCommand, ProjectState, ProjectEvent> = {
  initialState: () => ({ status: 'none' }),
  decide: decideByType<ProjectCommand, ProjectState, ProjectEvent>({
    update: (c, state) => {
      const p = mustExist(state, '');
      const next: ProjectSettings = {
        displayName: c.displayName ?? p.displayName,
        repository: c.repository ?? p.repository,
        trusted: c.trusted ?? p.trusted,
        environments: c.environments ?? p.environments,
        ...remediationOf({ team: c.team ?? p.team, testCommand: c.testCommand ?? p.testCommand, verifyWindowSeconds: c.verifyWindowSeconds ?? p.verifyWindowSeconds }),
      };
      return [{ type: 'project.updated', data: { project: p.project, ...next, updatedBy: c.updatedBy, at: c.now } }];
    },
    'create-key': (c, state) => {
      const p = mustExist(state, '');
      const { type: _type, now, ...rest } = c;
      return [{ type: 'project.ingest-key-created', data: { project: p.project, ...rest, at: now } }];
    },
    'revoke-key': (c, state) => {
      const p = mustExist(state, '');
      const key = p.keys[c.keyId];
      if (!key) throw new HeadspaceError(ErrorCodes.opsIngestKeyNotFound, `Project "${p.project}" has no ingest key "${c.keyId}"`, { field: 'keyId' });
      if (key.revoked) throw new HeadspaceError(ErrorCodes.opsIngestKeyAlreadyRevoked, `Ingest key "${c.keyId}" was revoked before`, { field: 'keyId' });
      return [{ type: 'project.ingest-key-revoked', data: { project: p.project, keyId: c.keyId, revokedBy: c.revokedBy, ...(c.reason ? { reason: c.reason } : {}), at: c.now } }];
    },
  }),
  evolve: evolveByType<ProjectState, ProjectEvent>({
    'project.created': (_s, { data: d }) => ({
      status: 'active',
      project: d.project,
      projectId: d.projectId,
      displayName: d.displayName,
      repository: d.repository,
      trusted: d.trusted,
      environments: d.environments,
      ...remediationOf(d),
      keys: {},
    }),
    'project.updated': (s, { data: d }) => {
      const { team: _team, ...rest } = s as ActiveProject;
      return { ...rest, displayName: d.displayName, repository: d.repository, trusted: d.trusted, environments: d.environments, ...remediationOf(d) };
    },
    'project.ingest-key-created': (s, e) => ({ ...(s as ActiveProject), keys: { ...(s as ActiveProject).keys, [e.data.keyId]: { keyHash: e.data.keyHash, revoked: false } } }),
    'project.ingest-key-revoked': (s, e) => {
      const p = s as ActiveProject;
      return { ...p, keys: { ...p.keys, [e.data.keyId]: { ...p.keys[e.data.keyId], revoked: true } } };
    },
  }),
};
