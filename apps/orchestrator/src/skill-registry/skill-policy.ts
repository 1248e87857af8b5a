import type { ToolPermissionPolicy } from '@headspace/agent-runtime';

const namesSkill = (rule: string) => /^\s*(Skill|\*)\s*(\(.*\))?\s*$/.test(rule);

/** Whether the session may load skills: no allow-list, or one naming `Skill`; and no deny rule naming it. */
export function mayUseSkills(policy: ToolPermissionPolicy): boolean {
  if (policy.disallowedTools?.some(namesSkill)) return false;
  return policy.tools === undefined || policy.tools.some(namesSkill);
}
