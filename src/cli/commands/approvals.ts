import type { Command } from 'commander';
import { resolveLedgerPath } from '../context.js';
import { printJson, printLine } from '../output.js';

interface ApprovalOptions {
  config?: string;
  proxy?: string;
  ledger?: string;
  json?: boolean;
}

const CONFIG_HELP = 'svc.yml to read the tenant, ledger and proxy address from (default: ./svc.yml)';

export function registerApprovals(program: Command): void {
  const approvals = program
    .command('approvals')
    .description('review step-up requests: see the exact payload and its hash, approve or reject it')
    .addHelpText('after', `
A step_up decision opens an approval bound to the exact payload. A reviewer approves it with their
own key (kept outside the workspace: see svc keys add-reviewer), which signs an approval artifact
over the payload hash. The agent then sends the same action again with header
"svc-approval: <approvalId>"; a payload that differs by one byte is blocked with
approval_payload_hash_mismatch.

Examples:
  svc approvals list
  svc approvals show apr_3xQ...
  svc approvals approve apr_3xQ... --as user:lead@acme.example --reason "partner expects it"
  svc approvals approve apr_3xQ... --as user:lead@acme.example --print-artifact   # for an SDK service
  svc approvals reject apr_3xQ... --as user:lead@acme.example --reason "not this quarter"`);

  approvals
    .command('list')
    .description('list open approvals (pending, or granted and not yet used)')
    .option('--config <file>', CONFIG_HELP)
    .option('--ledger <file>', 'the ledger to read (default: ledger.path of svc.yml)')
    .option('--json', 'print JSON')
    .action(async (options: ApprovalOptions) => {
      const { readApprovals } = await import('../../approvals/approval-desk.js');
      const open = await readApprovals(await resolveLedgerPath(options));
      if (options.json) return printJson({ approvals: open });
      if (open.length === 0) return printLine('no open approvals');
      for (const approval of open) {
        printLine(`${approval.approvalId}  ${approval.status.padEnd(7)}  ${approval.tool ?? '?'} → ${approval.resource ?? '?'}  requested ${approval.requestedAt} by ${approval.agentId ?? '?'}`);
      }
      return undefined;
    });

  approvals
    .command('show <approvalId>')
    .description('show the exact payload an approval is about, with its hashes')
    .option('--config <file>', CONFIG_HELP)
    .option('--ledger <file>', 'the ledger to read (default: ledger.path of svc.yml)')
    .option('--json', 'print JSON')
    .action(async (approvalId: string, options: ApprovalOptions) => {
      const { readApproval } = await import('../../approvals/approval-desk.js');
      const approval = await readApproval(await resolveLedgerPath(options), approvalId);
      if (options.json) return printJson({ approval });
      printLine(`approval     ${approval.approvalId} (${approval.status})`);
      printLine(`action       ${approval.actionId}: ${approval.tool ?? '?'} on ${approval.resource ?? '?'} by ${approval.agentId ?? '?'}`);
      printLine(`requested    ${approval.requestedAt}`);
      printLine(`actionHash   ${approval.actionHash}`);
      printLine(`payloadHash  ${approval.payloadHash}`);
      printLine('payload (exactly what would be sent; the hash above is sha256 of its JCS form):');
      printLine(JSON.stringify(approval.payload, null, 2));
      return undefined;
    });

  approvals
    .command('approve <approvalId>')
    .description("sign an approval artifact for the exact payload with the reviewer's key and record it")
    .requiredOption('--as <user>', 'the reviewer, user:<email>, whose key signs (svc keys add-reviewer --as ...)')
    .option('--reason <text>', 'why it is approved (recorded in the artifact)', 'approved by reviewer')
    .option('--valid-for <seconds>', 'how long the approval may be used', '3600')
    .option('--proxy <url>', 'the running proxy (default: http://<proxy.host>:<proxy.port> of svc.yml; without a proxy the ledger is written directly)')
    .option('--print-artifact', 'only sign: print the approval artifact and record nothing, for a service using the SDK to present (it records the grant)')
    .option('--config <file>', CONFIG_HELP)
    .option('--ledger <file>', 'the ledger to read (default: ledger.path of svc.yml)')
    .option('--json', 'print JSON')
    .action(async (approvalId: string, options: ApprovalOptions & { as: string; reason: string; validFor: string; printArtifact?: boolean }) => {
      const { approve, signApproval } = await import('../../approvals/approval-desk.js');
      const answer = { ...options, approvalId, reviewer: options.as, validForSeconds: Number(options.validFor) };
      if (options.printArtifact) {
        const signed = await signApproval(answer);
        return options.json ? printJson(signed) : printLine(signed.artifact);
      }
      const result = await approve(answer);
      if (options.json) return printJson(result);
      printLine(`approved ${approvalId} as ${options.as} for payload ${result.payloadHash}`);
      printLine(`recorded at ledger seq ${result.ledger.seq} (${result.via})`);
      printLine(`the agent may now send the same action with header svc-approval: ${approvalId}`);
      return undefined;
    });

  approvals
    .command('reject <approvalId>')
    .description('reject an approval; the action will not run')
    .requiredOption('--as <user>', 'the reviewer, user:<email>')
    .requiredOption('--reason <text>', 'why it is rejected')
    .option('--proxy <url>', 'the running proxy (default: http://<proxy.host>:<proxy.port> of svc.yml)')
    .option('--config <file>', CONFIG_HELP)
    .option('--ledger <file>', 'the ledger to read (default: ledger.path of svc.yml)')
    .option('--json', 'print JSON')
    .action(async (approvalId: string, options: ApprovalOptions & { as: string; reason: string }) => {
      const { reject } = await import('../../approvals/approval-desk.js');
      const result = await reject({ ...options, approvalId, reviewer: options.as });
      if (options.json) return printJson(result);
      printLine(`rejected ${approvalId} as ${options.as}; recorded at ledger seq ${result.ledger.seq} (${result.via})`);
      return undefined;
    });
}
