import { parseArguments, type OptionSyntax } from '../argument-parser.js';
import type { CommandContext, CommandConvention } from '../command-context.js';
import type { Word } from '../word-expansion.js';
import { argumentsOf, reportEach } from './operands.js';

/**
 * Database clients and debuggers whose own commands reach this machine's files and shell: psql's
 * backslash commands (`\! cat .env`, `\i file`, `\copy t from '.env'`, `\o file`) and server
 * functions that read files (`pg_read_file`), mysql's client commands (`system cat .env`,
 * `source file`, `LOAD DATA LOCAL INFILE '.env'`), DuckDB, whose SQL reads any file by name
 * (`select * from '.env'`), and lldb's commands (`platform shell cat .env`, `script …`).
 *
 * Such text is code known only when the client runs it: dynamic interpreter code, for policy to
 * decide, like `python -c`. A plain psql or mysql query (`select count(*) from users`) stays
 * quiet; a file of commands (`psql -f x.sql`, `mysql < x.sql`) may hold anything, as sqlite3's
 * `.read` does, and so does text piped in that the line does not show.
 */

function code(context: CommandContext, text: string, via: string): void {
  context.dynamic('execute', text.slice(0, 200), 'interpreter_code', via);
}

/** Commands (a word, a file of them, or standard input) checked by `reaches`: a word known only at run time, a file or unknown input is code. */
function clientCommands(context: CommandContext, commands: readonly Word[], files: readonly Word[], reaches: (text: string) => boolean, via: string): void {
  for (const command of commands) {
    if (command.value === undefined) code(context, command.text, via);
    else if (reaches(command.value)) code(context, command.value, `${via} (commands that reach files or a shell)`);
  }
  for (const file of files) {
    context.file('read', file, `${via} file`);
    code(context, file.value ?? file.text, `${via} (commands in a file)`);
  }
  const stdin = context.stdin;
  if (stdin.kind === 'file') {
    context.file('read', stdin.word, `${via} commands from standard input`);
    code(context, stdin.word.value ?? stdin.word.text, `${via} (commands in a file on standard input)`);
  } else if (stdin.kind === 'text' && (stdin.text === undefined || reaches(stdin.text))) {
    code(context, stdin.text ?? `${context.program} (commands from standard input)`, `${via} reading commands from standard input`);
  }
}

/** psql: any backslash command, and SQL that reads, writes or runs something on the server's side. */
const PSQL_REACHES = /\\|\b(?:copy|pg_read_file|pg_read_binary_file|pg_ls_dir|pg_stat_file|lo_import|lo_export|program)\b/i;

const PSQL_SYNTAX: OptionSyntax = {
  short: 'cdfhpUoLvPTFR',
  long: ['command', 'dbname', 'file', 'host', 'port', 'username', 'output', 'log-file', 'set', 'variable', 'pset', 'table-attr', 'field-separator', 'record-separator'],
};

const PSQL: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), PSQL_SYNTAX);
    reportEach(context, 'write', parsed.values('-o', '--output', '-L', '--log-file'), 'psql output file');
    clientCommands(context, parsed.values('-c', '--command'), parsed.values('-f', '--file'), (text) => PSQL_REACHES.test(text), 'psql');
  },
};

/** mysql and mariadb: client commands (`system`, `\!`, `source`, `\.`, `tee`, `pager`, `edit`) and SQL that moves files. */
const MYSQL_REACHES = /\\[!.TPe]|(?:^|;)\s*(?:system|source|tee|pager|edit)\b|\bload\s+data\b|\bload_file\s*\(|\binto\s+(?:outfile|dumpfile)\b/im;

const MYSQL_SYNTAX: OptionSyntax = {
  short: 'eDhPuS',
  glued: 'p',
  long: ['execute', 'database', 'host', 'port', 'user', 'socket', 'default-character-set', 'init-command', 'tee', 'pager', 'defaults-file', 'defaults-extra-file', 'login-path', 'ssl-ca', 'ssl-cert', 'ssl-key'],
};

const MYSQL: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), MYSQL_SYNTAX);
    reportEach(context, 'write', parsed.values('--tee'), 'mysql --tee');
    reportEach(context, 'read', parsed.values('--ssl-ca', '--ssl-cert', '--ssl-key'), 'mysql key file');
    // An option file may set init-command, pager or tee: code, like the commands themselves.
    for (const options of parsed.values('--defaults-file', '--defaults-extra-file')) {
      context.file('read', options, 'mysql option file');
      code(context, options.value ?? options.text, 'mysql option file (it may set commands)');
    }
    for (const pager of parsed.values('--pager')) code(context, pager.value ?? pager.text, 'mysql --pager');
    clientCommands(context, [...parsed.values('-e', '--execute'), ...parsed.values('--init-command')], [], (text) => MYSQL_REACHES.test(text), context.program);
  },
};

/** DuckDB: its SQL reads files by name (`from '.env'`, `read_csv`) and its dot-commands run a shell: every command is code. */
const DUCKDB: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), { short: 'cs', singleDashLong: true, long: ['c', 's', 'cmd', 'init'] });
    const [database, ...sql] = parsed.operands;
    if (database !== undefined && database.value !== ':memory:') {
      context.file('read', database, 'duckdb database');
      context.file('write', database, 'duckdb database');
    }
    clientCommands(context, [...parsed.values('-c', '-s', '-cmd'), ...sql], parsed.values('-init'), () => true, 'duckdb');
  },
};

/** lldb: `-o`, `-O`, `-k` commands and `-s`, `-S`, `-K` command files can run a shell (`platform shell`) or Python (`script`). */
const LLDB: CommandConvention = {
  handler(context) {
    const parsed = parseArguments(argumentsOf(context), {
      short: 'oOkKsSapnfc',
      long: ['one-line', 'one-line-before-file', 'one-line-on-crash', 'source-on-crash', 'source', 'source-before-file', 'arch', 'attach-pid', 'attach-name', 'file', 'core'],
    });
    const commands = parsed.values('-o', '--one-line', '-O', '--one-line-before-file', '-k', '--one-line-on-crash');
    const files = parsed.values('-s', '--source', '-S', '--source-before-file', '-K', '--source-on-crash');
    const batch = parsed.has('-b', '--batch');
    for (const command of commands) code(context, command.value ?? command.text, 'lldb command');
    for (const file of files) {
      context.file('read', file, 'lldb command file');
      code(context, file.value ?? file.text, 'lldb command file');
    }
    if (batch && context.stdin.kind !== 'inherited') code(context, 'lldb (commands from standard input)', 'lldb commands');
    reportEach(context, 'read', [...parsed.values('-f', '--file', '-c', '--core'), ...parsed.operands.slice(0, 1)], 'lldb target');
  },
};

export const DATABASE_CLIENTS: Record<string, CommandConvention> = {
  psql: PSQL,
  mysql: MYSQL,
  mariadb: MYSQL,
  duckdb: DUCKDB,
  lldb: LLDB,
};
