import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { addReviewer } from '../actionpass/key-ring.js';
import type { SigningKey } from '../actionpass/keys.js';
import { readTrustStore } from '../actionpass/trust-store.js';
import { parseConfig, type LoadedConfig } from '../config/load-config.js';
import { SvcError } from '../errors.js';
import type { HookEvaluation } from '../hooks/evaluate-hook.js';
import { RISKY_COMMANDS_RULE } from '../hooks/init-workspace.js';
import { authorizeWith } from '../hooks/hook-authorizer.js';
import type { PlanTools } from '../hooks/hook-actions.js';
import type { HookOutput } from '../hooks/hook-event.js';
import { decideWithin, hookDecider, type HookDecider } from '../hooks/run-hook.js';
import { runtimeProtocol } from '../hooks/runtimes/index.js';
import { Enforcer } from '../proxy/enforcer.js';
import type { DecisionBody } from '../proxy/responses.js';

/**
 * The playground's throwaway world: a temporary directory created at start with its own
 * ActionPass key, its own reviewer key, its own trust store, a fixture workspace (with a `.env`
 * to protect) and a fake home directory. Nothing here touches the user's `.svc/` or
 * `~/.config/svc`, nothing is executed, and no provider is reached: every decision is the real
 * Enforcer's, recorded in a ledger that lives only in this directory.
 */
export const PLAYGROUND_TENANT = 'org:playground';
export const PLAYGROUND_REVIEWER = 'user:reviewer@playground.example';

export interface PublicKeyView {
  name: string;
  role: string;
  publicKey: string;
  reviewer?: string;
}

export interface ActionEvidence {
  label: string;
  tool: string;
  resource: string;
  /** A `fs.file.*` action: one file operation the command performs. */
  fileOperation: boolean;
  decision: string;
  status: string;
  reasons: string[];
  explanation: string;
  actionId: string;
  actionHash: string;
  payloadHash: string;
  payload: unknown;
  ledger: { seq: number; hash: string };
  actionPass?: { token: string };
}

export interface CommandEvaluation {
  command: string;
  cwd: string;
  decision: 'allow' | 'deny' | 'step_up' | 'no_opinion';
  reasons: string[];
  /** What the hook tells the agent (Claude Code's PreToolUse answer). */
  hookOutput: { exitCode: number; stdout: string; stderr: string };
  actions: ActionEvidence[];
}

const FIXTURE: Record<string, string> = {
  '.env': 'DATABASE_URL=postgres://app:not-a-real-password@db.internal/app\nSTRIPE_KEY=sk_test_playground_placeholder\n',
  'src/app.ts': "export function hello(name: string): string {\n  return `hello ${name}`;\n}\n",
  'README.md': '# demo workspace\n\nA fixture for the svc playground. Nothing here is ever executed.\n',
  'package.json': '{ "name": "demo", "private": true }\n',
};

export function playgroundConfigText(root: string): string {
  return `# The playground's svc.yml: throwaway keys and ledger under ${root}.
tenant: ${PLAYGROUND_TENANT}
ledger:
  path: ${join(root, 'ledgers', 'commands', 'ledger.jsonl')}
  checkpoint: { everyRecords: 100000, everyMs: 3600000 }
keys:
  dir: ${join(root, 'state', 'keys')}
  trust: ${join(root, 'state', 'trust.json')}
protectedPaths:
  defaults: true
  dynamic: step_up
hooks:
  stepUp: deny
policy:
  rules:
${RISKY_COMMANDS_RULE}    - id: chat-allowlisted-channels
      when: { tool: chat.message.send, payload: { channel: { in: [eng, ops, deploys] } } }
      decision: allow
    - id: chat-other-channels
      when: { tool: chat.message.send, payload: { channel: { not_in: [eng, ops, deploys] } } }
      decision: deny
      reasons: [channel_not_allowlisted]
    - id: email-internal
      when: { tool: email.message.send, payload: { to: { glob: "*@acme.example" } } }
      decision: allow
    - id: email-external-recipients
      description: mail to anyone outside acme.example waits for a human, bound to the exact text
      when: { tool: email.message.send, payload: { to: { not_glob: "*@acme.example" } } }
      decision: step_up
      reasons: [external_recipient]
    - id: db-scoped-reads
      description: the analytics agent may read, classified by the PostgreSQL parser, as the read-only role scoped to its tenant
      when: { tool: db.query.run, payload: { statementClass: { equals: read }, role: { equals: app_readonly } } }
      decision: allow
    - id: db-writes
      description: no write reaches the database from an agent
      when: { tool: db.query.run, payload: { statementClass: { not_in: [read] } } }
      decision: deny
      reasons: [sql_write_denied]
    - id: mcp-files-read
      when: { tool: mcp.files.read_file }
      decision: allow
`;
}

export class PlaygroundSandbox {
  private commandEnforcer: Promise<Enforcer> | undefined;
  private decisions = 0;
  private runs = 0;
  private readonly decider: HookDecider;

  private constructor(
    readonly root: string,
    readonly loaded: LoadedConfig,
    readonly reviewerKey: SigningKey,
    readonly publicKeys: PublicKeyView[],
    private readonly rotateAfter: number,
  ) {
    this.decider = hookDecider(loaded, this.home, (tools) => confineTools(tools, realpathSync(root)));
  }

  /** Creates the throwaway directory, keys and fixture. `rotateAfter`: decisions per command ledger before a fresh one. */
  static async create(options: { rotateAfter?: number } = {}): Promise<PlaygroundSandbox> {
    const root = await mkdtemp(join(tmpdir(), 'svc-playground-'));
    try {
      const workspace = join(root, 'workspace');
      for (const [file, text] of Object.entries(FIXTURE)) {
        await mkdir(join(workspace, file, '..'), { recursive: true });
        await writeFile(join(workspace, file), text);
      }
      await mkdir(join(root, 'home', '.ssh'), { recursive: true });
      await writeFile(join(root, 'home', '.ssh', 'id_ed25519'), 'not a real key: a playground fixture\n', { mode: 0o600 });
      const configFile = join(workspace, 'svc.yml');
      const text = playgroundConfigText(root);
      await writeFile(configFile, text);
      const loaded: LoadedConfig = { file: configFile, config: parseConfig(text, configFile) };
      const { key } = await addReviewer({ reviewer: PLAYGROUND_REVIEWER, trustFile: join(root, 'state', 'trust.json'), keysDir: join(root, 'reviewer-keys'), workspaceDir: workspace });
      // Opening an Enforcer once creates the ActionPass key; its public half joins the trust store.
      const first = await Enforcer.open(withLedger(loaded, join(root, 'ledgers', 'init', 'ledger.jsonl')), { signer: 'in-thread' });
      await first.close();
      const store = await readTrustStore(join(root, 'state', 'trust.json'));
      const publicKeys = store.keys.map((entry) => ({ name: entry.name, role: entry.role, publicKey: entry.publicKey, ...(entry.reviewer !== undefined && { reviewer: entry.reviewer }) }));
      return new PlaygroundSandbox(root, loaded, key, publicKeys, options.rotateAfter ?? 5000);
    } catch (error) {
      await rm(root, { recursive: true, force: true });
      throw error;
    }
  }

  get workspace(): string {
    return join(this.root, 'workspace');
  }

  get home(): string {
    return join(this.root, 'home');
  }

  /** A fresh Enforcer on a ledger of its own, for one scenario run; the caller closes it (`withRun`). */
  async withRun<T>(run: (enforcer: Enforcer) => Promise<T>): Promise<T> {
    this.runs += 1;
    const dir = join(this.root, 'ledgers', `run-${this.runs}`);
    const enforcer = await Enforcer.open(withLedger(this.loaded, join(dir, 'ledger.jsonl')), { signer: 'in-thread' });
    try {
      return await run(enforcer);
    } finally {
      await enforcer.close();
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * Evaluates a shell command exactly as `svc hook claude-code` does for a Bash tool call in the
   * fixture workspace: the same protocol parser, the same hook decider and the same in-process
   * authorizer (`svc-source: hook`). Nothing is executed.
   */
  async evaluateCommand(command: string): Promise<CommandEvaluation> {
    const enforcer = await this.enforcerForCommands();
    const stdin = JSON.stringify({ session_id: 'playground', cwd: this.workspace, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } });
    return this.evaluateEvent(enforcer, stdin, command);
  }

  /** Runs one hook event (Claude Code's JSON) through the hook path against `enforcer`. */
  async evaluateEvent(enforcer: Enforcer, stdin: string, command: string): Promise<CommandEvaluation> {
    const protocol = runtimeProtocol('claude-code');
    const calls: { input: unknown; body?: DecisionBody }[] = [];
    const authorize = authorizeWith(enforcer);
    const run = await decideWithin(protocol, stdin, 5000, (event) =>
      this.decider.decide(event, protocol, async (action) => {
        const call: { input: unknown; body?: DecisionBody } = { input: action };
        calls.push(call);
        call.body = await authorize(action);
        return call.body;
      }),
    );
    this.decisions += calls.length;
    return commandEvaluation(command, this.workspace, run.output, run.evaluation, calls);
  }

  async close(): Promise<void> {
    const enforcer = this.commandEnforcer;
    this.commandEnforcer = undefined;
    if (enforcer) await (await enforcer.catch(() => undefined))?.close();
    await rm(this.root, { recursive: true, force: true });
  }

  /** The command box's ledger, replaced by a fresh one every `rotateAfter` decisions so a public server's disk use stays bounded. */
  private async enforcerForCommands(): Promise<Enforcer> {
    if (this.commandEnforcer !== undefined && this.decisions >= this.rotateAfter) {
      const old = this.commandEnforcer;
      this.commandEnforcer = undefined;
      this.decisions = 0;
      // Requests already holding the old Enforcer finish within the hook timeout; then its ledger goes.
      setTimeout(() => {
        void old
          .then(async (enforcer) => {
            await enforcer.close();
            await rm(dirname(enforcer.writer.path), { recursive: true, force: true });
          })
          .catch(() => undefined);
      }, 6000).unref();
    }
    if (this.commandEnforcer === undefined) {
      this.runs += 1;
      const opening = Enforcer.open(withLedger(this.loaded, join(this.root, 'ledgers', `commands-${this.runs}`, 'ledger.jsonl')), { signer: 'in-thread' });
      opening.catch(() => {
        if (this.commandEnforcer === opening) this.commandEnforcer = undefined;
      });
      this.commandEnforcer = opening;
    }
    return this.commandEnforcer;
  }
}

function within(root: string, path: string): boolean {
  const rest = relative(root, path);
  return rest === '' || (!rest.startsWith('..') && !isAbsolute(rest));
}

/**
 * The hook's filesystem tools, confined to the sandbox. A public server must not list its own
 * directories to visitors: a recursive read of a directory outside the sandbox (`grep -r x /`)
 * is not walked for protected files (which would name the host's files and cost up to 150 ms a
 * directory) but denied, fail closed, with `playground_outside_sandbox`; and where a symlink
 * outside the sandbox leads is not shown.
 */
function confineTools(tools: PlanTools, root: string): PlanTools {
  return {
    ...tools,
    resolvePath(text, context) {
      const resolved = tools.resolvePath(text, context);
      return resolved.realPath !== undefined && !within(root, resolved.realPath) ? { path: resolved.path } : resolved;
    },
    protects(path) {
      if (!within(root, path)) {
        throw new SvcError('playground_outside_sandbox', 'the playground does not walk directories outside its sandbox for protected files; svc hook in a real workspace does, and a recursive read there is decided file by file');
      }
      return tools.protects(path);
    },
  };
}

function withLedger(loaded: LoadedConfig, path: string): LoadedConfig {
  return { file: loaded.file, config: { ...loaded.config, ledger: { ...loaded.config.ledger, path } } };
}

export function actionEvidence(label: string, input: unknown, body: DecisionBody): ActionEvidence {
  const capability = (input as { capability: { tool: string; resource: string; payload: unknown } }).capability;
  return {
    label,
    tool: capability.tool,
    resource: capability.resource,
    fileOperation: capability.tool.startsWith('fs.file.'),
    decision: body.decision.decision,
    status: body.status,
    reasons: body.decision.reasons,
    explanation: body.explanation,
    actionId: body.action.actionId,
    actionHash: body.action.actionHash,
    payloadHash: body.action.payloadHash,
    payload: capability.payload,
    ledger: { seq: body.ledger.seq, hash: body.ledger.hash },
    ...(body.actionPass && { actionPass: { token: body.actionPass.token } }),
  };
}

function commandEvaluation(command: string, cwd: string, output: HookOutput, evaluation: HookEvaluation | undefined, calls: { input: unknown; body?: DecisionBody }[]): CommandEvaluation {
  const hookOutput = { exitCode: output.exitCode, stdout: output.stdout, stderr: output.stderr };
  if (evaluation === undefined) {
    // The hook could not decide (its reason ends with [code]): it denied, as `svc hook` would.
    const codes = [...`${output.stdout}\n${output.stderr}`.matchAll(/\[([a-z][a-z0-9_]*)\]/g)].map((match) => match[1] as string);
    return { command, cwd, decision: 'deny', reasons: [codes.at(-1) ?? 'hook_failed'], hookOutput, actions: [] };
  }
  const actions = evaluation.results.map((result, index) => {
    const call = calls[index];
    if (call?.body === undefined) throw new SvcError('internal_error', 'a hook decision has no recorded body');
    return actionEvidence(result.label, call.input, call.body);
  });
  // The reasons of the actions that made the call's decision (a deny's, not the no-opinions beside it).
  const deciding = actions.filter((action) => action.decision === evaluation.decision || (evaluation.decision === 'deny' && action.status === 'blocked'));
  const reasons = [...new Set((deciding.length > 0 ? deciding : actions).flatMap((action) => action.reasons))];
  return { command, cwd, decision: evaluation.decision, reasons, hookOutput, actions };
}
