import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Option, type Command } from 'commander';
import { HOOK_RUNTIMES, type HookRuntime } from '../../hooks/hook-event.js';
import { printJson, printLine } from '../output.js';

interface InitCommandOptions {
  runtime: HookRuntime;
  dir: string;
  svcCommand?: string;
  json?: boolean;
}

export function registerInit(program: Command): void {
  program
    .command('init')
    .description('set up this workspace for a coding agent: svc.yml, the agent hook, and .svc/ ignored by git')
    .addOption(new Option('--runtime <runtime>', 'the coding agent whose hook settings to update').choices([...HOOK_RUNTIMES]).default('claude-code'))
    .option('--dir <workspace>', 'the workspace to set up', '.')
    .option('--svc-command <command>', 'how the agent starts svc (default: this node and this svc, by absolute path)')
    .option('--json', 'print what was done as JSON')
    .addHelpText('after', `
Writes svc.yml unless one exists (protected paths on, risky commands step up), adds
\`svc hook <runtime> --config <this svc.yml>\` to the agent's project hook settings (svc started
by absolute path; merged with what is there, never replacing other hooks, replacing an earlier
svc hook), and adds .svc/ (ledger, keys) to .gitignore. Running it again changes nothing. Warns
when the hook could fail to run, or would not run at all (Claude Code's disableAllHooks). Then add a reviewer key for yourself, outside the workspace:

  svc keys add-reviewer --as user:you@example.com

Examples:
  svc init
  svc init --runtime cursor --svc-command "npx svc"`)
    .action(async (options: InitCommandOptions) => {
      const { initWorkspace } = await import('../../hooks/init-workspace.js');
      const workspace = resolve(options.dir);
      // This svc's own script, so the hook runs the svc that set it up, wherever the agent's PATH leads.
      const cliPath = fileURLToPath(new URL('../svc.cjs', import.meta.url));
      const steps = await initWorkspace({
        workspace,
        runtime: options.runtime,
        ...(options.svcCommand !== undefined && { svcCommand: options.svcCommand }),
        ...(existsSync(cliPath) && { cliPath }),
      });
      if (options.json) {
        printJson({ workspace, runtime: options.runtime, steps });
        return;
      }
      for (const step of steps) {
        printLine(`${step.changed ? 'changed' : 'kept   '}  ${step.what} (${step.file})`);
        if (step.warning !== undefined) printLine(`warning  ${step.warning}`);
      }
      if (steps.every((step) => !step.changed)) printLine('nothing to do: this workspace is already set up');
      else printLine(`\nnext: svc keys add-reviewer --as user:<your email>   (your approval key, kept outside the workspace)`);
    });
}
