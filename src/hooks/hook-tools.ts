/**
 * The tools a runtime hook plans (hook-actions.ts): a shell command, the file operations it
 * performs, a directory listing, a web fetch, an MCP tool call. A hook's action describes work the
 * coding agent does itself, outside any adapter of svc, so adapter payload contracts do not apply
 * to it; in exchange an action marked as a hook's may name only these tools, so the mark cannot
 * carry an adapter call (an email, a chat message) past its contract.
 */
export const HOOK_TOOLS_DESCRIPTION = 'shell.command.run, fs.file.read|write|delete|execute, fs.directory.list, web.page.fetch or mcp.<server>.<tool>';

const HOOK_TOOL = /^(?:shell\.command\.run|fs\.file\.(?:read|write|delete|execute)|fs\.directory\.list|web\.page\.fetch|mcp\.[^.]+\.[^.]+)$/;

export function isHookTool(tool: string): boolean {
  return HOOK_TOOL.test(tool);
}
