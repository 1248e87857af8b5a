import { z } from 'zod';
import { defineCommand, defineEvent, defineQuery } from '../messages';

/** A monitored application's name: the `:project` of the REST paths and of token project scopes. */
export const opsProjectNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be 1-63 lowercase letters, digits or hyphens, starting with a letter or digit');

/** The numeric id of a project: the last path segment of its DSN (Sentry SDKs accept only digits there). */
export const opsProjectIdSchema = z.string().regex(/^[1-9][0-9]{0,17}$/, 'must be a positive decimal number');

/** A project is addressed by its name or by its numeric DSN id. */
export const opsProjectRefSchema = z.string().min(1).max(100);

/** Where the code of the project lives: a git URL or a directory on the orchestrator host. */
const repositorySchema = z.string().min(1).max(2_048);
const environmentsSchema = z.array(z.string().min(1).max(64)).max(50);
/** The team whose approvals queue gets the project's fix approvals and whose personas run its fixes. */
const teamSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be a team name: 1-63 lowercase letters, digits or hyphens');
/** The shell command that runs the project's tests in a checkout (the regression test must fail, then pass, under it). */
const testCommandSchema = z.string().min(1).max(1_000);
/** How long after a fix is committed no event of its release may arrive before it is VERIFIED. */
const verifyWindowSchema = z.number().int().min(0).max(30 * 86_400);
/** Remediation settings (all optional on events recorded before they existed). */
const remediationFields = { team: z.string().optional(), testCommand: z.string().optional(), verifyWindowSeconds: z.number().int().optional() };
const actorSchema = z.string().min(1).max(200).default('operator');
const at = z.iso.datetime();

export const opsProjectStreamId = (project: string) => `opsproject-${project}`;
/** Every project's name and numeric id: create-project takes its turn here, so names and ids are unique. */
export const OPS_PROJECT_REGISTRY_STREAM = 'opsprojects-registry';

export const projectRegistered = defineEvent({
  service: 'ops-leon',
  category: 'project',
  name: 'registered',
  schema: z.object({ project: z.string(), projectId: z.string(), at }),
});

export const projectCreated = defineEvent({
  service: 'ops-leon',
  category: 'project',
  name: 'created',
  schema: z.object({
    project: z.string(),
    projectId: z.string(),
    displayName: z.string(),
    repository: z.string(),
    trusted: z.boolean(),
    environments: z.array(z.string()),
    ...remediationFields,
    createdBy: z.string(),
    at,
  }),
});

/** The project's settings after the change (all of them, so a reader needs no earlier event). */
export const projectUpdated = defineEvent({
  service: 'ops-leon',
  category: 'project',
  name: 'updated',
  schema: z.object({
    project: z.string(),
    displayName: z.string(),
    repository: z.string(),
    trusted: z.boolean(),
    environments: z.array(z.string()),
    ...remediationFields,
    updatedBy: z.string(),
    at,
  }),
});

/** Only the key's SHA-256 is recorded: the key itself is shown once, to the caller that created it. */
export const projectIngestKeyCreated = defineEvent({
  service: 'ops-leon',
  category: 'project',
  name: 'ingest-key-created',
  schema: z.object({
    project: z.string(),
    keyId: z.string(),
    keyHash: z.string().regex(/^[0-9a-f]{64}$/),
    /** The key's first 4 characters, to tell keys apart in lists. */
    hint: z.string().max(8),
    label: z.string(),
    createdBy: z.string(),
    at,
  }),
});

export const projectIngestKeyRevoked = defineEvent({
  service: 'ops-leon',
  category: 'project',
  name: 'ingest-key-revoked',
  schema: z.object({ project: z.string(), keyId: z.string(), revokedBy: z.string(), reason: z.string().optional(), at }),
});

export const projectEvents = [projectRegistered, projectCreated, projectUpdated, projectIngestKeyCreated, projectIngestKeyRevoked];

export const opsProjectViewSchema = z.object({
  project: z.string(),
  projectId: z.string(),
  displayName: z.string(),
  repository: z.string(),
  trusted: z.boolean(),
  environments: z.array(z.string()),
  team: z.string().nullable(),
  testCommand: z.string(),
  verifyWindowSeconds: z.number().int(),
  activeKeys: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type OpsProjectView = z.output<typeof opsProjectViewSchema>;

export const ingestKeyViewSchema = z.object({
  keyId: z.string(),
  project: z.string(),
  hint: z.string(),
  label: z.string(),
  createdBy: z.string(),
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
});
export type IngestKeyView = z.output<typeof ingestKeyViewSchema>;

export const createOpsProject = defineCommand({
  service: 'ops-leon',
  name: 'create-project',
  request: z.object({
    project: opsProjectNameSchema,
    displayName: z.string().min(1).max(200).optional(),
    repository: repositorySchema,
    /** Trusted projects may run low-severity fixes without an approval (seed 000 §4.6). */
    trusted: z.boolean().default(false),
    environments: environmentsSchema.default([]),
    team: teamSchema.optional(),
    testCommand: testCommandSchema.default('npm test'),
    verifyWindowSeconds: verifyWindowSchema.default(3_600),
    actor: actorSchema,
  }),
  response: z.object({ project: z.string(), projectId: z.string(), streamVersion: z.string() }),
});

export const updateOpsProject = defineCommand({
  service: 'ops-leon',
  name: 'update-project',
  request: z.object({
    project: opsProjectNameSchema,
    displayName: z.string().min(1).max(200).optional(),
    repository: repositorySchema.optional(),
    trusted: z.boolean().optional(),
    environments: environmentsSchema.optional(),
    team: teamSchema.optional(),
    testCommand: testCommandSchema.optional(),
    verifyWindowSeconds: verifyWindowSchema.optional(),
    actor: actorSchema,
  }),
  response: z.object({ project: opsProjectViewSchema.omit({ activeKeys: true }), streamVersion: z.string() }),
});

/**
 * A new ingest key (Sentry DSN public key). The gateway builds the DSN
 * `http://<publicKey>@<gateway-host>/<projectId>`; the key is never shown again (a retried command
 * that already made one answers OPS.INGEST_KEY_ALREADY_ISSUED).
 */
export const createIngestKey = defineCommand({
  service: 'ops-leon',
  name: 'create-ingest-key',
  request: z.object({ project: opsProjectNameSchema, label: z.string().min(1).max(200).default('default'), actor: actorSchema }),
  response: z.object({ project: z.string(), projectId: z.string(), keyId: z.string(), publicKey: z.string(), hint: z.string() }),
});

export const revokeIngestKey = defineCommand({
  service: 'ops-leon',
  name: 'revoke-ingest-key',
  request: z.object({ project: opsProjectNameSchema, keyId: z.string().min(1).max(100), reason: z.string().max(2_000).optional(), actor: actorSchema }),
  response: z.object({ project: z.string(), keyId: z.string(), revokedAt: z.string() }),
});

export const listOpsProjects = defineQuery({
  service: 'ops-leon',
  name: 'list-projects',
  request: z.object({}),
  response: z.object({ projects: z.array(opsProjectViewSchema) }),
});

/** By name or numeric DSN id. */
export const getOpsProject = defineQuery({
  service: 'ops-leon',
  name: 'get-project',
  request: z.object({ project: opsProjectRefSchema }),
  response: opsProjectViewSchema,
});

export const listIngestKeys = defineQuery({
  service: 'ops-leon',
  name: 'list-ingest-keys',
  request: z.object({ project: opsProjectNameSchema, includeRevoked: z.stringbool().or(z.boolean()).default(false) }),
  response: z.object({ keys: z.array(ingestKeyViewSchema) }),
});
