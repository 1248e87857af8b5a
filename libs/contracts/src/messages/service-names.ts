export const ServiceNames = ['gateway', 'team-manager', 'orchestrator', 'cost-governor', 'ops-leon'] as const;
export type ServiceName = (typeof ServiceNames)[number];

/** The PostgreSQL schema that holds a service's streams, projections and checkpoints. */
export function schemaOf(service: ServiceName): string {
  return service.replace(/-/g, '_');
}
