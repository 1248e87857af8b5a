import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '@headspace/platform';
import { createHash } from 'node:crypto';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppConfig } from '../config';
import { RunSourcePolicy } from '../runs/run-source.policy';
import { git } from '../workspace/git';

/**
 * The project directory a `list-agents` source names, under the runs' source policy: a directory
 * under HS_SOURCE_ROOTS, or a git URL shallow-cloned once into `<HS_WORKSPACES_DIR>/agent-sources`
 * (its agents are read from that clone; a later push is seen after the orchestrator restarts).
 */
@Injectable()
export class AgentProjects {
  private readonly policy: RunSourcePolicy;
  private readonly clones = new Map<string, Promise<string>>();

  constructor(@Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'HS_SOURCE_ROOTS' | 'HS_WORKSPACES_DIR'>) {
    this.policy = new RunSourcePolicy({ roots: config.HS_SOURCE_ROOTS, workspacesDir: config.HS_WORKSPACES_DIR });
  }

  async dirOf(source: string): Promise<string> {
    const checked = await this.policy.check(source);
    if (checked.startsWith('/')) return checked;
    let clone = this.clones.get(checked);
    if (!clone) {
      clone = this.clone(checked);
      this.clones.set(checked, clone);
      clone.catch(() => this.clones.delete(checked));
    }
    return clone;
  }

  private async clone(url: string): Promise<string> {
    const dir = join(this.config.HS_WORKSPACES_DIR, 'agent-sources', createHash('sha256').update(url).digest('hex').slice(0, 16));
    if (await stat(join(dir, '.git')).then(() => true, () => false)) return dir;
    await rm(dir, { recursive: true, force: true });
    await mkdir(join(dir, '..'), { recursive: true });
    await git(join(dir, '..'), ['clone', '--depth', '1', '--quiet', '--', url, dir]);
    return dir;
  }
}
