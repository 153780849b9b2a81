/**
 * CDPATH makes `cd name` look for `name` in each of its directories before the working one:
 * after `CDPATH=~`, `cd .aws` enters `~/.aws`. The analysis starts from the CDPATH of the
 * environment (the agent's shell inherits the hook's) and follows assignments in the command.
 */
export type CdPath =
  /** The directories, in order; `''` is the working directory. */
  | readonly string[]
  /** Set to something known only at run time: any relative `cd` may go anywhere. */
  | 'dynamic'
  /**
   * The CDPATH of the environment the analysis runs in, read when a `cd` needs it (most command
   * lines have none, and reading the environment is not free). Nothing changes the environment
   * while a command line is analyzed, so it reads the same as at the start.
   */
  | 'inherited'
  /** Unset or empty: `cd` uses the working directory only. */
  | undefined;

/** The search list a CDPATH value gives. */
export function cdpathOf(value: string | undefined): readonly string[] | undefined {
  if (value === undefined || value === '') return undefined;
  return value.split(':');
}

/** The search list `cdpath` stands for, with the environment's read if it is the inherited one. */
export function cdpathInEffect(cdpath: CdPath): Exclude<CdPath, 'inherited'> {
  return cdpath === 'inherited' ? cdpathOf(process.env.CDPATH) : cdpath;
}

/** True when `cd target` searches CDPATH: a relative name that does not start with `.` or `..` as a component. */
export function searchesCdpath(target: string): boolean {
  return !(target.startsWith('/') || target === '.' || target === '..' || target.startsWith('./') || target.startsWith('../'));
}
