import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { HOOK_RUNTIMES, type HookRuntime } from '../../hooks/hook-event.js';
import { printJson, printLine } from '../output.js';

interface InitCommandOptions {
  runtime: HookRuntime;
  dir: string;
  svcCommand: string;
  json?: boolean;
}

export function registerInit(program: Command): void {
  program
    .command('init')
    .description('set up this workspace for a coding agent: svc.yml, the agent hook, and .svc/ ignored by git')
    .addOption(new Option('--runtime <runtime>', 'the coding agent whose hook settings to update').choices([...HOOK_RUNTIMES]).default('claude-code'))
    .option('--dir <workspace>', 'the workspace to set up', '.')
    .option('--svc-command <command>', 'how the agent starts svc (for example "npx svc" when svc is not on PATH)', 'svc')
    .option('--json', 'print what was done as JSON')
    .addHelpText('after', `
Writes svc.yml unless one exists (protected paths on, risky commands step up), adds
\`svc hook <runtime>\` to the agent's project hook settings (merged with what is there, never
replacing other hooks), and adds .svc/ (ledger, keys) to .gitignore. Running it again changes
nothing. Then add a reviewer key for yourself, outside the workspace:

  svc keys add-reviewer --as user:you@example.com

Examples:
  svc init
  svc init --runtime cursor --svc-command "npx svc"`)
    .action(async (options: InitCommandOptions) => {
      const { initWorkspace } = await import('../../hooks/init-workspace.js');
      const workspace = resolve(options.dir);
      const steps = await initWorkspace({ workspace, runtime: options.runtime, svcCommand: options.svcCommand });
      if (options.json) {
        printJson({ workspace, runtime: options.runtime, steps });
        return;
      }
      for (const step of steps) printLine(`${step.changed ? 'changed' : 'kept   '}  ${step.what} (${step.file})`);
      if (steps.every((step) => !step.changed)) printLine('nothing to do: this workspace is already set up');
      else printLine(`\nnext: svc keys add-reviewer --as user:<your email>   (your approval key, kept outside the workspace)`);
    });
}
