import type { Command } from 'commander';
import { SvcError } from '../../errors.js';
import { EVENT_TYPES, type EventType } from '../../events/event-types.js';
import { rfc3339FieldsInRange } from '../../events/rfc3339.js';
import type { TimelineFilter } from '../../projections/timeline.js';
import { EXIT_CHECK_FAILED, resolveLedgerPath } from '../context.js';
import { printLine, progressReporter } from '../output.js';

interface ReplayOptions {
  config?: string;
  ledger?: string;
  action?: string;
  agent?: string;
  tool?: string;
  type?: string[];
  since?: string;
  until?: string;
  json?: boolean;
}

export function registerReplay(program: Command): void {
  program
    .command('replay')
    .description('show the forensic timeline of the ledger, verifying the chain as it reads')
    .option('--config <file>', 'svc.yml to read the ledger path from')
    .option('--ledger <file>', 'the ledger to read (default: ledger.path of svc.yml, else .svc/ledger.jsonl)')
    .option('--action <id>', 'only records of this action')
    .option('--agent <agentId>', 'only actions of this agent (agent:<name>)')
    .option('--tool <tool>', 'only actions of this tool (e.g. chat.message.send)')
    .option('--type <type...>', `only these record types (${EVENT_TYPES.join(', ')})`)
    .option('--since <time>', 'only records at or after this RFC 3339 time')
    .option('--until <time>', 'only records at or before this RFC 3339 time')
    .option('--json', 'print one JSON object per record (JSON Lines): seq, ts, type, stream, hash and data')
    .addHelpText('after', `
Each record is checked as it is read (canonical form, seq, chain, checkpoints); a defect ends the
timeline with its code, seq and byte offset, and exit status 1. So does a ledger with fewer
records than its checkpoint file <ledger>.checkpoint covers (root_mismatch): records were removed.

Examples:
  svc replay --action act_01J9Z...
  svc replay --agent agent:deployer --type policy.decided execution.blocked
  svc replay --since 2026-11-21T00:00:00Z --json | jq .`)
    .action(async (options: ReplayOptions) => {
      const { toSha256 } = await import('../../events/canonical.js');
      const { checkLedgerInput, describeDefect } = await import('../../evidence/ledger-input.js');
      const { runLedgerPass } = await import('../../evidence/ledger-pass.js');
      const { describeRecord, TimelineSelector } = await import('../../projections/timeline.js');
      const ledgerPath = await resolveLedgerPath(options);
      const selector = new TimelineSelector(parseFilter(options));
      const checkpointFile = await checkLedgerInput(ledgerPath);
      const progress = options.json ? undefined : progressReporter('replaying');
      let shown = 0;
      const pass = await runLedgerPass(ledgerPath, {
        tolerateTornTail: true,
        checkpointFile,
        ...(progress && { onProgress: progress.update }),
        onRecords: (records) => {
          progress?.end();
          for (const { record, leafHash } of records) {
            if (!selector.accepts(record)) continue;
            shown += 1;
            if (options.json) printLine(JSON.stringify({ seq: record.seq, ts: record.ts, type: record.type, stream: record.stream, hash: toSha256(leafHash), data: record.data }));
            else printLine(`${String(record.seq).padStart(7)}  ${record.ts}  ${record.type.padEnd(19)}  ${record.stream.padEnd(24)}  ${describeRecord(record)}`);
          }
        },
      });
      progress?.end();
      const summary = pass.defect
        ? `ledger defect ${describeDefect(pass.defect)}`
        : pass.tornTail
          ? `torn tail from byte offset ${pass.tornTail.offset} (an interrupted append; the writer quarantines it on its next open)`
          : undefined;
      if (options.json) {
        if (summary) process.stderr.write(`svc replay: ${summary}\n`);
      } else {
        printLine(`${shown} of ${pass.checker.size} records shown from ${ledgerPath}`);
        if (summary) printLine(summary);
      }
      if (pass.defect) process.exitCode = EXIT_CHECK_FAILED;
    });
}

function parseFilter(options: ReplayOptions): TimelineFilter {
  const filter: TimelineFilter = {};
  if (options.action) filter.actionId = options.action;
  if (options.agent) filter.agentId = options.agent;
  if (options.tool) filter.tool = options.tool;
  if (options.type) {
    const unknown = options.type.filter((type) => !(EVENT_TYPES as readonly string[]).includes(type));
    if (unknown.length > 0) throw new SvcError('usage', `unknown record type ${unknown.join(', ')}; known types: ${EVENT_TYPES.join(', ')}`);
    filter.types = options.type as EventType[];
  }
  if (options.since) filter.since = parseTime('--since', options.since);
  if (options.until) filter.until = parseTime('--until', options.until);
  return filter;
}

function parseTime(flag: string, value: string): number {
  const time = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(value) && rfc3339FieldsInRange(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) throw new SvcError('usage', `${flag} ${value} is not an RFC 3339 time such as 2026-11-21T10:00:00Z`);
  return time;
}
