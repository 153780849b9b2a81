import { Command } from 'commander';
import { registerApprovals } from './commands/approvals.js';
import { registerExport } from './commands/export.js';
import { registerHook } from './commands/hook.js';
import { registerInit } from './commands/init.js';
import { registerKeys } from './commands/keys.js';
import { registerMcp } from './commands/mcp.js';
import { registerPlayground } from './commands/playground.js';
import { registerPolicy } from './commands/policy.js';
import { registerProveEquivalence } from './commands/prove-equivalence.js';
import { registerProxy } from './commands/proxy.js';
import { registerReplay } from './commands/replay.js';
import { registerVerifyExport } from './commands/verify-export.js';

export const VERSION = '0.6.1';

export function buildProgram(): Command {
  const program = new Command('svc')
    .version(VERSION)
    .description('content authorization for AI agents: payload-bound decisions and a ledger anyone can verify offline')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  registerInit(program);
  registerProxy(program);
  registerApprovals(program);
  registerHook(program);
  registerPolicy(program);
  registerReplay(program);
  registerExport(program);
  registerVerifyExport(program);
  registerProveEquivalence(program);
  registerKeys(program);
  registerMcp(program);
  registerPlayground(program);
  for (const command of program.commands) command.exitOverride().showHelpAfterError('(run with --help for usage)');
  return program;
}
