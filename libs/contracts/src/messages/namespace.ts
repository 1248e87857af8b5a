/**
 * An optional namespace in front of every NATS subject and JetStream stream name, so several
 * Headspace installations (or parallel test runs) can share one NATS without seeing each other:
 * `HS_NAMESPACE=ci42` turns `hs.evt.team-manager.>` into `ci42.hs.evt.team-manager.>` and the stream
 * `HS_EVT_TEAM_MANAGER` into `CI42_HS_EVT_TEAM_MANAGER`. Empty (the default) means no prefix.
 */
let namespace = normalise(process.env.HS_NAMESPACE);

function normalise(value: string | undefined): string {
  const ns = (value ?? '').trim();
  if (ns !== '' && !/^[a-z0-9][a-z0-9-]{0,31}$/.test(ns)) {
    throw new Error(`HS_NAMESPACE must be 1-32 lowercase letters, digits or dashes, got "${ns}"`);
  }
  return ns;
}

export function setSubjectNamespace(value: string | undefined): void {
  namespace = normalise(value);
}

export function subjectNamespace(): string {
  return namespace;
}

export function namespacedSubject(subject: string): string {
  return namespace ? `${namespace}.${subject}` : subject;
}

export function namespacedStreamName(name: string): string {
  return namespace ? `${namespace.toUpperCase().replace(/-/g, '_')}_${name}` : name;
}
