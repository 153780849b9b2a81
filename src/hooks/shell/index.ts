/**
 * Shell analysis for `svc hook`: what a command line does to files, read with the real bash
 * grammar. See docs/shell-analysis.md.
 */
export { analyzeWithoutGrammar, loadShellAnalyzer, type ShellAnalyzer } from './shell-analyzer.js';
export { resolveFilePath, type ResolvedPath } from './path-resolution.js';
export type { DynamicReason, FileOperation, FileOperationKind, ShellAnalysis, ShellContext, SimpleCommand } from './shell-analysis.js';
