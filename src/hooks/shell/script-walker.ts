import type { AnalysisSession } from './analysis-session.js';
import { addsWorkingDirectories, dispatchCommand, InvocationContext } from './command-invocation.js';
import { carriesCode, type EnvironmentAssignment } from './commands/environment.js';
import type { StdinSource } from './command-context.js';
import { cdpathOf } from './cdpath.js';
import { reportFile } from './file-reporting.js';
import { globOptionsAfterAssignment } from './glob-options.js';
import { UnanalyzableCommand } from './operation-log.js';
import { interpretRedirection, isTouchingDescriptor, type Redirection } from './redirections.js';
import type { FileOperationKind } from './shell-analysis.js';
import { copyState, type ShellState } from './shell-state.js';
import { regroupStatement } from './statement-grouping.js';
import { staticOutput } from './static-output.js';
import type { SyntaxNode } from './syntax-tree.js';
import { groupAdjacent } from './syntax-words.js';
import { expandWord, visitEvaluated, visitSubstitutions, type ExpansionScope, type Word } from './word-expansion.js';
import { arithmeticRisk, holdsSubscriptCode, isArithmeticTest, printsOnlyNumbers } from './evaluated-text.js';
import { eitherDirectory, primaryDirectory } from './working-directory.js';

/** The node types that are statements (things that run), as opposed to words and tokens. */
const STATEMENT_TYPES: ReadonlySet<string> = new Set([
  'command',
  'redirected_statement',
  'pipeline',
  'list',
  'subshell',
  'compound_statement',
  'if_statement',
  'while_statement',
  'for_statement',
  'c_style_for_statement',
  'case_statement',
  'function_definition',
  'negated_command',
  'test_command',
  'declaration_command',
  'unset_command',
  'variable_assignment',
  'variable_assignments',
]);

/**
 * Reserved words the grammar accepts as a command name where bash reports a syntax error
 * (`done`, `fi` alone): such a line never runs as analyzed, so it is refused.
 */
const MISPLACED_RESERVED_WORDS: ReadonlySet<string> = new Set(['then', 'else', 'elif', 'fi', 'do', 'done', 'esac', '}']);

const INHERITED: StdinSource = { kind: 'inherited' };

/** Bodies of compound commands that hold statements without being statements themselves. */
const STATEMENT_BLOCKS: ReadonlySet<string> = new Set(['do_group', 'elif_clause', 'else_clause', 'case_item']);

const ASSIGNMENT_WORD = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** `${NAME=…}` or `${NAME:=…}`: an expansion that assigns NAME. */
const ASSIGNING_EXPANSION = /\$\{([A-Za-z_][A-Za-z0-9_]*):?=/g;

/**
 * Builtins that resolve variable names given as arguments, subscripts included. The names `read`,
 * `printf -v`, `mapfile` and `getopts` set are checked where they are set (applyVariableSetters);
 * `declare` and `unset` reach here only behind `builtin` or `command`.
 */
const NAME_RESOLVING_BUILTINS: ReadonlySet<string> = new Set(['test', '[', 'wait', 'unset', 'declare', 'typeset', 'local']);

/**
 * Walks one parsed script the way bash would run it: statements in order, each pipeline
 * element and subshell on a copy of the shell state, substitutions wherever they appear,
 * redirections before the command they belong to. Every simple command goes to its handler
 * (command-invocation.ts); everything a statement does to files is reported to the session.
 *
 * `statement` returns what the statement writes to its standard output when that is known
 * statically (`echo 'cat .env'`, `cat <<EOF …`), so a shell at the end of the pipe can read it.
 */
export class ScriptWalker {
  constructor(
    readonly session: AnalysisSession,
    readonly source: string,
    readonly depth: number,
  ) {}

  program(root: SyntaxNode, state: ShellState): void {
    // `${BASH_ENV:=x.sh}`, `${PATH:=…}`: an expansion that assigns, wherever it stands (most
    // scripts have no `${` at all, and looking for one is cheaper than running the pattern).
    if (this.source.includes('${')) {
      for (const match of this.source.matchAll(ASSIGNING_EXPANSION)) {
        this.variableSet(match[1], { value: undefined, text: match[0], reason: 'variable' }, state);
        if (match[1] !== undefined) state.suspect.add(match[1]);
      }
    }
    this.sequence(root.children, state);
  }

  /** Statements separated by `;`, `&` or newlines; one followed by `&` runs in the background, in a subshell. */
  private sequence(children: readonly SyntaxNode[], state: ShellState): string | undefined {
    let output: string | undefined;
    for (let index = 0; index < children.length; index += 1) {
      const child = children[index] as SyntaxNode;
      if (!child.named || child.type === 'comment') continue;
      if (STATEMENT_TYPES.has(child.type)) {
        const background = children[index + 1]?.type === '&';
        output = this.statement(child, background ? copyState(state) : state, INHERITED);
      } else {
        this.substitutionsIn(child, state);
      }
    }
    return output;
  }

  statement(node: SyntaxNode, state: ShellState, stdin: StdinSource): string | undefined {
    this.session.checkTime();
    switch (node.type) {
      case 'command':
        return this.command(node, state, stdin, [], undefined, []);
      case 'redirected_statement':
      case 'pipeline': {
        // `cd d && cat < f | head`: the grammar's grouping is not bash's (statement-grouping.ts).
        const grouped = regroupStatement(node);
        if (grouped.type === 'redirected_statement') return this.redirectedStatement(grouped, state, stdin);
        if (grouped.type === 'pipeline') return this.pipeline(grouped.children.filter((child) => child.named && child.type !== 'comment'), state, stdin);
        return this.statement(grouped, state, stdin);
      }
      case 'list':
        return this.list(node, state, stdin);
      case 'subshell':
        return this.sequence(node.children, copyState(state));
      case 'compound_statement':
        // `(( … ))` is arithmetic, not a group of statements.
        if (node.children[0]?.type === '((') for (const child of node.children) if (child.named) this.evaluated(child, 'arithmetic', state);
        return this.sequence(node.children, state);
      case 'negated_command':
        return this.sequence(node.children, state);
      case 'function_definition':
        // The body runs whenever the function is called (maybe never, maybe later): it is
        // analyzed once, where it is defined, on a copy of the state.
        this.conditional(node, copyState(state));
        return undefined;
      case 'variable_assignment':
      case 'variable_assignments':
      case 'declaration_command': {
        // declare, typeset and local resolve subscripted names; export and readonly refuse them.
        if (node.type === 'declaration_command' && !['export', 'readonly'].includes(node.children[0]?.type ?? '')) {
          this.namesWithSubscriptCode(node.children.filter((child) => child.named && child.type !== 'variable_assignment' && !this.text(child).startsWith('-')), state);
        }
        // `declare -i x=$y`: the value is arithmetic.
        if (node.type === 'declaration_command' && node.children.some((child) => /^-[a-zA-Z]*i/.test(this.text(child)))) {
          for (const child of node.children) if (child.type === 'variable_assignment') for (const value of child.children) if (value.field === 'value') this.evaluated(value, 'arithmetic', state);
        }
        const assignments: EnvironmentAssignment[] = [];
        for (const child of node.type === 'variable_assignment' ? [node] : node.children) {
          if (child.type === 'variable_assignment') this.assignment(child, state, true, assignments);
          else if (child.named) {
            this.substitutionsIn(child, state);
            // `export "BASH_ENV=x"`, `export {PATH,X}=…`: assignments the grammar sees as words.
            for (const word of expandWord([child], this.scope(state), { glob: false })) this.variableSet(ASSIGNED_NAME.exec(word.value ?? word.text)?.[1], word, state);
          }
        }
        // `declare -n r=BASH_ENV`, `-gn`, `-rn`: a later `r=…` sets the variable it names, maybe not yet known.
        if (node.children.some((child) => /^-[a-zA-Z]*n/.test(this.text(child)))) {
          for (const assignment of assignments) {
            this.variableSet(VARIABLE_NAME.exec(assignment.value.value ?? '')?.[1] ?? 'PATH', assignment.value, state);
            // In arithmetic a nameref reads the variable it names, which may be suspect.
            state.suspect.add(assignment.name.replace(/\[.*$/, ''));
          }
          if (assignments.length === 0) state.pathChanged = true;
        }
        // An assignment to an exported variable (`export PAGER=…`, or `EDITOR=…` when EDITOR is exported) reaches later commands.
        if (assignments.length > 0) dispatchCommand(new InvocationContext(this, state, [], stdin, { homeReassigned: false, assignments }));
        return undefined;
      }
      case 'unset_command':
        if (node.children.some((child) => this.text(child) === 'HOME')) state.home = undefined;
        this.namesWithSubscriptCode(node.children.filter((child) => child.named), state);
        this.substitutionsIn(node, state);
        return undefined;
      case 'test_command':
        this.testExpressions(node, state);
        this.walkBlock(node, state);
        return undefined;
      default:
        // `for PATH in /tmp/e; do ls; done`: the loop variable is assigned too.
        if (node.type === 'for_statement') {
          const variable = node.children.find((child) => child.field === 'variable');
          if (variable !== undefined) {
            this.variableSet(this.text(variable), { value: undefined, text: this.text(node).slice(0, 40), reason: 'variable' }, state);
            // `for i in 1 2 3` sets i to text the line shows; `for i in $(…)` to what only the run knows.
            const values = node.children.filter((child) => child.field === 'value');
            if (values.length === 0 || values.some((value) => /[$`[]/.test(this.text(value)))) state.suspect.add(this.text(variable));
          }
        }
        if (node.type === 'c_style_for_statement') {
          for (const child of node.children) if (child.named && child.field !== 'body') this.evaluated(child, 'arithmetic', state);
        }
        // if, while, until, for, case, c-style for: bodies may or may not run.
        this.conditional(node, state);
        return undefined;
    }
  }

  /**
   * A compound command whose parts run conditionally or repeatedly: everything in it is
   * followed, and a `cd` inside leaves both the old and the new directory possible.
   */
  private conditional(node: SyntaxNode, state: ShellState): void {
    const before = state.cwd;
    this.walkBlock(node, state);
    state.cwd = eitherDirectory(state.cwd, before);
  }

  private walkBlock(node: SyntaxNode, state: ShellState): void {
    for (const child of node.children) {
      if (!child.named || child.type === 'comment') continue;
      if (STATEMENT_TYPES.has(child.type)) this.statement(child, state, INHERITED);
      else if (STATEMENT_BLOCKS.has(child.type)) this.walkBlock(child, state);
      else if (child.field === 'redirect') this.applyRedirections([interpretRedirection(child, this.source)], state, this.scope(state));
      else if (child.field === 'variable') {
        if (this.text(child) === 'HOME') state.home = undefined;
      } else if (child.field === 'value' && node.type === 'for_statement') {
        // `for f in $(cat list)`: the words are expanded (and their substitutions run).
        expandWord([child], this.scope(state));
      } else this.substitutionsIn(child, state);
    }
  }

  /** `a && b`, `a || b`: the right side of `||` runs when the left failed, maybe before its `cd`. */
  private list(node: SyntaxNode, state: ShellState, stdin: StdinSource): string | undefined {
    const operands = node.children.filter((child) => child.named && child.type !== 'comment');
    const operator = node.children.find((child) => !child.named)?.type;
    const [left, right] = operands;
    if (!left || !right) return this.sequence(node.children, state);
    const before = state.cwd;
    this.statement(left, state, stdin);
    if (operator === '||') state.cwd = eitherDirectory(state.cwd, before);
    return this.statement(right, state, INHERITED);
  }

  /** Every element runs in a subshell; each reads what the previous one wrote. */
  private pipeline(elements: readonly SyntaxNode[], state: ShellState, stdin: StdinSource, firstOutput?: () => string | undefined): string | undefined {
    let input = stdin;
    let output: string | undefined;
    let first = true;
    if (firstOutput) {
      output = firstOutput();
      input = { kind: 'text', from: 'pipe', text: output };
      first = false;
    }
    for (const element of elements) {
      output = this.statement(element, copyState(state), first ? stdin : input);
      input = { kind: 'text', from: 'pipe', text: output };
      first = false;
    }
    return output;
  }

  private redirectedStatement(node: SyntaxNode, state: ShellState, stdin: StdinSource): string | undefined {
    const body = node.children.find((child) => child.field === 'body');
    const redirectNodes = node.children.filter((child) => child.field === 'redirect');
    const redirections = this.interpretAll(redirectNodes);
    const heredoc = redirections.find((redirection) => redirection.kind === 'heredoc' && (redirection.pipedTo.length > 0 || redirection.then !== undefined));
    const run = (runState: ShellState): string | undefined => {
      const scope = this.scope(runState);
      const applied = this.applyRedirections(redirections, runState, scope);
      const input = applied.stdin ?? stdin;
      let output: string | undefined;
      if (body?.type === 'command') output = this.command(body, runState, input, applied.extraWords, applied.stdin, redirectNodes.map((redirect) => redirect.start));
      else if (applied.extraWords.length > 0) throw new UnanalyzableCommand('bash cannot parse the command: words follow the redirection of a compound command');
      else if (body) output = this.statement(body, runState, input);
      return applied.redirectsOutput ? undefined : output;
    };
    if (heredoc?.kind !== 'heredoc') return run(state);
    // `cat <<EOF | sh && rm x`: the grammar hangs the rest of the line on the heredoc.
    const before = state.cwd;
    let output: string | undefined;
    if (heredoc.pipedTo.length > 0) output = this.pipeline(heredoc.pipedTo, state, INHERITED, () => run(copyState(state)));
    else output = run(state);
    if (heredoc.then) {
      if (heredoc.then.operator === '||') state.cwd = eitherDirectory(state.cwd, before);
      output = this.statement(heredoc.then.right, state, INHERITED);
    }
    return output;
  }

  private interpretAll(nodes: readonly SyntaxNode[]): Redirection[] {
    const redirections: Redirection[] = [];
    for (const node of nodes) {
      const redirection = interpretRedirection(node, this.source);
      redirections.push(redirection);
      if (redirection.kind === 'heredoc') redirections.push(...this.interpretAll(redirection.extraRedirects));
    }
    return redirections;
  }

  /**
   * Reports what the redirections open, and returns the standard input they give the command
   * (a later one wins, as in bash) and the words the grammar put on them that are arguments.
   */
  private applyRedirections(redirections: readonly Redirection[], state: ShellState, scope: ExpansionScope): AppliedRedirections {
    let stdin: StdinSource | undefined;
    const extraWords: SyntaxNode[][] = [];
    let redirectsOutput = false;
    for (const redirection of redirections) {
      extraWords.push(...redirection.extraWords);
      const readsStdin = redirection.descriptor === undefined || redirection.descriptor === '0';
      if (redirection.kind === 'herestring') {
        const words = redirection.content ? expandWord(redirection.content, scope, { glob: false }) : [];
        const value = words.length === 1 ? words[0]?.value : undefined;
        if (readsStdin) stdin = { kind: 'text', from: 'here-string', text: value === undefined ? undefined : `${value}\n` };
        continue;
      }
      if (redirection.kind === 'heredoc') {
        // An unquoted heredoc expands `$(…)` in its body before the command reads it.
        if (!redirection.quoted && redirection.body) this.substitutionsIn(redirection.body, state);
        if (readsStdin) stdin = { kind: 'text', from: 'heredoc', text: redirection.quoted ? redirection.text : unquotedHeredocText(redirection.text) };
        continue;
      }
      const { operator } = redirection;
      const words = redirection.target ? expandWord(redirection.target, scope) : [];
      for (const word of words) {
        for (const kind of redirectionKinds(operator, word)) {
          reportFile(this.session, state, kind, word, `${operator} redirection`);
        }
      }
      if (operator === '<' && readsStdin && words.length === 1) stdin = { kind: 'file', word: words[0] as Word };
      if ((operator.startsWith('>') || operator.startsWith('&>')) && (redirection.descriptor === undefined || redirection.descriptor === '1') && redirectionKinds(operator, words[0]).length > 0) redirectsOutput = true;
    }
    return { stdin, extraWords, redirectsOutput };
  }

  /**
   * One simple command: prefix assignments, words, redirections. `extraWords` are arguments the
   * grammar attached to an enclosing redirection; `outerStdin` is what the enclosing
   * redirections feed it (they come later in the text, so they win over the command's own).
   */
  private command(node: SyntaxNode, state: ShellState, stdin: StdinSource, extraWords: readonly SyntaxNode[][], outerStdin: StdinSource | undefined, outerRedirectStarts: readonly number[]): string | undefined {
    const scope = this.scope(state);
    let homeReassigned = false;
    const assignments: EnvironmentAssignment[] = [];
    const wordNodes: SyntaxNode[] = [];
    const redirectNodes: SyntaxNode[] = [];
    for (const child of node.children) {
      if (child.type === 'variable_assignment') {
        if (this.assignment(child, state, false, assignments)) homeReassigned = true;
      } else if (child.field === 'redirect') redirectNodes.push(child);
      else if (child.field === 'name' || child.field === 'argument') {
        // `command_name` wraps the word; unwrapping it keeps plain names on the fast path.
        wordNodes.push(child.type === 'command_name' && child.children.length === 1 ? (child.children[0] as SyntaxNode) : child);
      } else if (child.named) this.substitutionsIn(child, state);
    }
    const applied = this.applyRedirections(this.interpretAll(redirectNodes), state, scope);
    const redirectStarts = new Set([...outerRedirectStarts, ...redirectNodes.map((redirect) => redirect.start)]);
    const groups = [...groupAdjacent(wordNodes, this.source), ...extraWords, ...applied.extraWords].filter((group) => !isTouchingDescriptor(group, this.source, redirectStarts));
    const name = groups[0]?.length === 1 ? groups[0][0] : undefined;
    if (name?.type === 'word' && MISPLACED_RESERVED_WORDS.has(this.text(name))) throw new UnanalyzableCommand(`bash cannot parse the command: unexpected \`${this.text(name)}\``);
    if (extraWords.length > 0 || applied.extraWords.length > 0) groups.sort((a, b) => (a[0]?.start ?? 0) - (b[0]?.start ?? 0));
    const argv: Word[] = [];
    for (const group of groups) {
      const first = group[0] as SyntaxNode;
      const assignment = first.type === 'word' && ASSIGNMENT_WORD.test(this.source.slice(first.start, first.end));
      argv.push(...expandWord(group, scope, { assignment }));
    }
    const input = outerStdin ?? applied.stdin ?? stdin;
    if (argv.length === 0 && assignments.length === 0) return undefined;
    this.builtinEvaluation(argv, state);
    const context = new InvocationContext(this, state, argv, input, { homeReassigned, assignments });
    dispatchCommand(context);
    return applied.redirectsOutput ? undefined : staticOutput(argv, input);
  }

  /**
   * A variable that changes what later commands mean, set in a way the assignments above do not
   * follow: PATH makes program names unknown, HOME makes `~` unknown, BASH_ENV and ENV are a
   * script the next shell sources, known only at run time.
   */
  variableSet(name: string | undefined, word: Word, state: ShellState): void {
    if (name === undefined) return;
    const bare = name.replace(/\[.*$/, '');
    if (bare === 'PATH') state.pathChanged = true;
    else if (bare === 'HOME') state.home = undefined;
    else if (bare === 'BASH_ENV' || bare === 'ENV' || carriesCode(bare)) {
      this.session.log.add({ kind: 'execute', dynamic: { text: word.value ?? word.text, reason: 'variable' }, via: `${bare} set to code or a file a later program runs` });
    }
  }

  /** Runs the substitutions in an assignment's value; true when it assigns HOME. */
  private assignment(node: SyntaxNode, state: ShellState, persistent: boolean, assignments: EnvironmentAssignment[]): boolean {
    const name = node.children.find((child) => child.field === 'name');
    const values = node.children.filter((child) => child.field === 'value');
    const scope = this.scope(state);
    let expanded: Word[] | undefined;
    for (const value of values) {
      if (value.type === 'array') this.substitutionsIn(value, state);
      else expanded = expandWord([value], scope, { glob: false, assignment: true });
    }
    // `a[$(cat .env)0]=1`: the subscript is expanded, and for an indexed array evaluated as arithmetic.
    if (name?.type === 'subscript') {
      this.substitutionsIn(name, state);
      const index = name.children.find((child) => child.field === 'index');
      if (index !== undefined) this.evaluated(index, 'arithmetic', state);
    }
    const assigned = name === undefined ? undefined : this.text(name);
    const variable = name?.type === 'subscript' ? name.children.find((child) => child.field === 'name') : name;
    if (variable !== undefined && this.text(variable) === 'BASH_ALIASES') this.evaluatedCode(this.text(node), 'an alias, whose text runs wherever its name later starts a command');
    if (variable !== undefined) {
      // Known: text the line spells out, a number printer's output, or variables that are not
      // suspect themselves (`port=${PORT:-3000}` holds the environment's value or the literal).
      const known =
        values.every((value) => value.type !== 'array' && (!/[$`]/.test(this.text(value)) || printsOnlyNumbers(value, this.source) || arithmeticRisk(value, this.source, state.suspect) === undefined)) ||
        (expanded?.length === 1 && expanded[0]?.value !== undefined);
      // `x=$'a[\x24(…)]'` decodes to a subscript with an expansion; `x=a` evaluates a in arithmetic.
      const value = expanded?.length === 1 ? expanded[0]?.value : undefined;
      const evaluatesAgain = values.some((node) => holdsSubscriptCode(this.text(node))) || (value !== undefined && (holdsSubscriptCode(value) || /^[A-Za-z_][A-Za-z0-9_]*$/.test(value)));
      if (!known || evaluatesAgain) state.suspect.add(this.text(variable));
    }
    // Variables that carry code or files (commands/environment.ts) are reported by the command they reach.
    if (assigned !== undefined && expanded?.length === 1) assignments.push({ name: assigned, value: expanded[0] as Word });
    // GLOBIGNORE and BASHOPTS change later globs (glob-options.ts), CDPATH later `cd`s; as the
    // prefix of one command too (conservatively: a shell that command starts inherits them).
    if (assigned !== undefined) state.glob = globOptionsAfterAssignment(assigned, state.glob);
    if (assigned === 'PATH' && persistent && values.some((value) => addsWorkingDirectories(this.text(value)))) state.pathChanged = true;
    if (assigned === 'CDPATH') {
      const value = values.length === 0 ? '' : expanded?.length === 1 ? expanded[0]?.value : undefined;
      state.cdpath = value === undefined ? 'dynamic' : cdpathOf(value);
    }
    const home = assigned === 'HOME';
    if (home && persistent) state.home = undefined;
    return home;
  }

  /** `unset 'a[$(…)]'`, `declare 'a[$(…)]'`: a name whose subscript bash expands when it resolves the name. */
  private namesWithSubscriptCode(nodes: readonly SyntaxNode[], state: ShellState): void {
    // Expanded again only to read the names: the substitutions in them have been followed already.
    const scope: ExpansionScope = { ...this.scope(state), substitution: () => undefined, evaluated: () => undefined };
    const words = nodes.flatMap((node) => (node.type === 'variable_name' ? [{ value: this.text(node), text: this.text(node) }] : expandWord([node], scope, { glob: false })));
    this.subscriptNames(words, true);
  }

  /**
   * Names bash resolves: one whose subscript holds an expansion runs it; with `unknownIsCode`
   * (the words are all names), one known only at run time may be such a name.
   */
  subscriptNames(words: readonly Word[], unknownIsCode: boolean): void {
    for (const word of words) {
      if (word.value === undefined ? unknownIsCode : /^[A-Za-z_][A-Za-z0-9_]*\[/.test(word.value) && holdsSubscriptCode(word.value)) {
        this.evaluatedCode(word.value ?? word.text, word.value === undefined ? 'a variable name known only at run time, which may hold a subscript' : 'a variable name whose subscript holds an expansion');
      }
      // BASH_ALIASES[name]=…: an alias, set without the alias builtin.
      if (word.value?.startsWith('BASH_ALIASES') === true) this.evaluatedCode(word.value, 'an alias, whose text runs wherever its name later starts a command');
    }
  }

  /**
   * Builtins that resolve the names they are given (`read 'a[$(…)]'`, `printf -v`, `test -v`),
   * evaluate their arguments as arithmetic (`let`), or define text that runs later (`alias`).
   */
  private builtinEvaluation(argv: readonly Word[], state: ShellState): void {
    let at = 0;
    while (argv[at]?.value === 'builtin' || (argv[at]?.value === 'command' && !argv[at + 1]?.value?.startsWith('-'))) at += 1;
    const program = argv[at]?.value;
    const args = argv.slice(at + 1);
    if (program === 'let') {
      for (const arg of args) {
        const suspect = arg.value?.match(/[A-Za-z_][A-Za-z0-9_]*/g)?.find((name) => state.suspect.has(name));
        const why =
          arg.value === undefined
            ? 'an expression known only at run time'
            : holdsSubscriptCode(arg.value)
              ? 'an array subscript holding an expansion'
              : suspect !== undefined
                ? `${suspect}, set by this command line from data known only at run time`
                : undefined;
        if (why !== undefined) this.evaluatedCode(arg.text, `let evaluates ${why}`);
      }
    } else if (program === 'alias') {
      // Once aliases expand (`shopt -s expand_aliases`, an interactive shell), the name runs
      // the alias' text with whatever words follow it: `alias x=eval` then `x 'cat .env'`.
      const definition = args.find((arg) => arg.value === undefined || arg.value.includes('='));
      if (definition !== undefined) this.evaluatedCode(definition.text, 'an alias, whose text runs wherever its name later starts a command, with the words that follow');
    } else if (program !== undefined && NAME_RESOLVING_BUILTINS.has(program)) {
      this.subscriptNames(args, false);
      // `test -v "$name"`: the name is resolved, whatever it turns out to be.
      if (program === 'test' || program === '[') this.subscriptNames(args.filter((_, index) => args[index - 1]?.value === '-v'), true);
    }
  }

  /** In `[[ … ]]`: `-v 'a[$(…)]'` resolves a name, `-eq` and its kin evaluate arithmetic. */
  private testExpressions(node: SyntaxNode, state: ShellState): void {
    for (const child of node.children) {
      if (isArithmeticTest(child, this.source)) {
        for (const operand of child.children) if (operand.field === 'left' || operand.field === 'right') this.evaluated(operand, 'arithmetic', state);
      } else if (child.type === 'unary_expression' && child.children[0] !== undefined && this.text(child.children[0]) === '-v') {
        this.namesWithSubscriptCode(child.children.slice(1), state);
      }
      if (child.named && child.children.length > 0 && child.type !== 'command_substitution') this.testExpressions(child, state);
    }
  }

  /** Follows `$(…)`, `` `…` `` and `<(…)` found anywhere under `node`. */
  private substitutionsIn(node: SyntaxNode, state: ShellState): void {
    if (node.type === 'command_substitution' || node.type === 'process_substitution') {
      this.substitution(node, state);
      return;
    }
    const scope = { substitution: (inner: SyntaxNode) => this.substitution(inner, state), evaluated: (inner: SyntaxNode, as: 'arithmetic' | 'prompt') => this.evaluated(inner, as, state) };
    visitSubstitutions(node, scope);
    visitEvaluated(node, scope);
  }

  /**
   * Text bash evaluates again (evaluated-text.ts): arithmetic that could run a command, a
   * `${x@P}` prompt string. Known only at run time, it is code for policy to decide.
   */
  evaluated(node: SyntaxNode, as: 'arithmetic' | 'prompt', state: ShellState): void {
    const why = as === 'prompt' ? 'a ${…@P} expansion runs its value as a prompt string, command substitutions included' : arithmeticRisk(node, this.source, state.suspect);
    if (why !== undefined) this.evaluatedCode(this.text(node), why);
  }

  /** Reports text bash runs as code that no word of the command line shows. */
  evaluatedCode(text: string, why: string): void {
    this.session.log.add({ kind: 'execute', dynamic: { text: text.slice(0, 200), reason: 'interpreter_code' }, via: `bash evaluates this again: ${why}` });
  }

  /** A command or process substitution: a subshell running its statements. */
  substitution(node: SyntaxNode, state: ShellState): void {
    // In `${x:-$((a))}` tree-sitter-bash reads the arithmetic as a substitution of a subshell
    // `(a)`; bash evaluates it as arithmetic.
    if (node.type === 'command_substitution' && this.source.startsWith('$((', node.start)) for (const child of node.children) this.evaluated(child, 'arithmetic', state);
    const inner = copyState(state);
    // `>(cmd)` reads what the outer command writes into it: unknown input.
    const stdin: StdinSource = node.type === 'process_substitution' && this.source.startsWith('>(', node.start) ? { kind: 'text', from: 'pipe', text: undefined } : INHERITED;
    for (const child of node.children) {
      if (STATEMENT_TYPES.has(child.type)) this.statement(child, inner, stdin);
      // `$(< file)` is bash's shorthand for `$(cat file)`.
      else if (child.field === 'redirect') this.applyRedirections(this.interpretAll([child]), inner, this.scope(inner));
      else if (child.named && child.type !== 'comment') this.substitutionsIn(child, inner);
    }
  }

  scope(state: ShellState): ExpansionScope {
    return {
      source: this.source,
      home: state.home,
      cwd: primaryDirectory(state.cwd),
      probe: this.session.probe,
      glob: state.glob,
      substitution: (node) => this.substitution(node, state),
      evaluated: (node, as) => this.evaluated(node, as, state),
    };
  }

  private text(node: SyntaxNode): string {
    return this.source.slice(node.start, node.end);
  }
}

/**
 * What a command reads from an unquoted heredoc (`<<EOF`): bash removes the backslash before
 * `\`, `$`, `` ` `` and a newline first (so `cat .e\\nv` arrives as `cat .e\nv`, which a shell
 * reads as `cat .env`); a `$` or `` ` `` left is an expansion, and then the text is unknown.
 */
function unquotedHeredocText(body: string): string | undefined {
  let text = '';
  for (let index = 0; index < body.length; index += 1) {
    const char = body[index] as string;
    if (char === '$' || char === '`') return undefined;
    const next = body[index + 1];
    if (char === '\\' && next !== undefined && '$`\\\n'.includes(next)) {
      if (next !== '\n') text += next;
      index += 1;
    } else text += char;
  }
  return text;
}

/** A variable name, and the name an assignment word sets (`NAME=…`, `NAME[0]=…`): variableSet decides which names matter. */
const VARIABLE_NAME = /^([A-Za-z_][A-Za-z0-9_]*)$/;
const ASSIGNED_NAME = /^([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])?=/;

/** What the redirections of one command did: see applyRedirections. */
interface AppliedRedirections {
  /** The standard input they give the command, if they change it. */
  stdin: StdinSource | undefined;
  /** Words the grammar put on the redirections that are arguments of the command. */
  extraWords: SyntaxNode[][];
  /** True when standard output goes to a file. */
  redirectsOutput: boolean;
}

/** What a redirection operator does to the file it names (none for `2>&1`, `<&3`, `>&-`). */
function redirectionKinds(operator: string, target: Word | undefined): FileOperationKind[] {
  const duplicate = target?.value !== undefined && /^(\d+-?|-)$/.test(target.value);
  switch (operator) {
    case '<':
      return ['read'];
    case '<>':
      return ['read', 'write'];
    case '>&':
      return duplicate ? [] : ['write'];
    case '<&':
      return duplicate ? [] : ['read'];
    case '>':
    case '>>':
    case '>|':
    case '&>':
    case '&>>':
      return ['write'];
    default:
      return [];
  }
}
