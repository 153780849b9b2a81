import * as z from 'zod';
import { MAX_STRING_LENGTH } from '../actionpass/action.js';
import { ADAPTER_CODES } from './adapter-codes.js';
import { checkConfinedTarget, writeConfined, type ConfinedTarget } from './confined-write.js';
import { payloadSchemaIssues, type CodedIssue } from './handler-issues.js';
import { parsedHandler } from './parsed-handler.js';
import { resourceName, text } from './payload-fields.js';
import { performVerified } from './perform-verified.js';
import { prepareCanonicalCall } from './prepared-call.js';
import { parseSandboxPath } from './sandbox-path.js';
import type { ToolHandler } from './tool-handler.js';

/**
 * `fs.file.write` on `file:<relative path>`, payload exactly `{ path, content }`: writes `content`
 * (UTF-8) to that path inside the sandbox directory, replacing the file if it exists.
 *
 * The call the handler prepares and hashes is the JCS write request `{ content, path }`; the
 * file's bytes are decoded from that prepared request after verification, never from the action
 * object, so what reaches the disk is exactly what the executed payload hash describes.
 */
export const FS_WRITE_TOOL = 'fs.file.write';

const fsWritePayload = z.strictObject({
  path: z.string({ error: 'expected a string' }),
  content: text({ max: MAX_STRING_LENGTH }),
});

export function fsFileWrite(options: { sandboxDir: string }): ToolHandler {
  return parsedHandler({
    tool: FS_WRITE_TOOL,
    parse(action) {
      const issues: CodedIssue[] = [];
      const filePath = resourceName(action.capability.resource, 'file');
      let segments: string[] | undefined;
      if (filePath === undefined) {
        issues.push({ code: ADAPTER_CODES.resourceInvalid, path: 'capability.resource', message: 'expected file:<path relative to the sandbox>' });
      } else {
        const parsedPath = parseSandboxPath(filePath);
        if (parsedPath.ok) segments = parsedPath.segments;
        else issues.push({ code: parsedPath.code, path: 'capability.resource', message: parsedPath.message });
      }
      const payload = fsWritePayload.safeParse(action.capability.payload);
      if (!payload.success) issues.push(...payloadSchemaIssues(payload.error));
      else if (filePath !== undefined && payload.data.path !== filePath) {
        issues.push({ code: ADAPTER_CODES.resourceMismatch, path: 'capability.payload.path', message: `must equal the resource's path "${filePath}"` });
      }
      if (issues.length > 0 || !payload.success || segments === undefined) return { ok: false, issues };
      return { ok: true, value: { segments, payload: payload.data } };
    },
    async run(call, context) {
      const prepared = prepareCanonicalCall(call.payload);
      const target: ConfinedTarget = { area: 'sandbox', root: options.sandboxDir, segments: call.segments };
      // Read-only, before verification: a symlinked path refuses the call before anything is written.
      await checkConfinedTarget(target);
      return performVerified(context, prepared, async (bytes) => {
        const content = Buffer.from(contentOf(bytes), 'utf8');
        await writeConfined(target, content, 0o644);
        return { path: call.segments.join('/'), bytes: content.length };
      });
    },
  });
}

function contentOf(request: Buffer): string {
  const parsed: unknown = JSON.parse(request.toString('utf8'));
  if (typeof parsed !== 'object' || parsed === null || typeof (parsed as { content?: unknown }).content !== 'string') {
    throw new TypeError('the prepared write request has no content');
  }
  return (parsed as { content: string }).content;
}
