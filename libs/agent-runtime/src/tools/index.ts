export * from './types';
export * from './paths';
export * from './permissions';
export * from './fs-tools';
export * from './bash-tool';
export * from './team-tools';
export * from './registry';

import { bashTool } from './bash-tool';
import { fileTools } from './fs-tools';
import type { AnyToolDefinition } from './types';

/** Read, Write, Edit, Glob, Grep and Bash with default limits. */
export const workspaceTools: readonly AnyToolDefinition[] = [...fileTools, bashTool];
