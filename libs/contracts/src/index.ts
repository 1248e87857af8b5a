export * from './errors/headspace-error';
export * from './errors/error-codes';
export * from './errors/http-status';
export * from './errors/validation-error';
export * from './messages';
export * from './team-manager';
export * from './orchestrator/team-directory.contracts';
