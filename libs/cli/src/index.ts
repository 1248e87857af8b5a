export { buildProgram, runCli, type RunContext } from './program';
export { ExitCode, CliError } from './exit-codes';
export { ApiClient, ApiError, type Problem } from './api-client';
export { configPath, readConfig, writeConfig, resolveSettings, type CliConfig } from './config';
export { SseParser, type SseMessage } from './sse-reader';
export { tail, formatEvent, type TailOptions } from './tail';
export * from './run/run-progress';
export { followRun, type FollowOptions } from './run/follow-run';
export { startRunFromGoal, teamNameFor } from './run/run-commands';
