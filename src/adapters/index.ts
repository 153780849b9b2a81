/**
 * `svc/adapters`: the handlers that perform side effects, and the contract they share with the
 * proxy and the SDK. See docs/adapters.md.
 */
export type { ExecutionResult, HandlerContext, HandlerIssue, PreparedCall, ToolHandler } from './tool-handler.js';
export { HandlerRegistry } from './handler-registry.js';
export { demoHandlers } from './demo-handlers.js';
export { chatMessageSend, CHAT_TOOL, CHAT_TEXT_MAX } from './chat-message-send.js';
export { emailMessageSend, EMAIL_TOOL, EMAIL_SUBJECT_MAX } from './email-message-send.js';
export { fsFileWrite, FS_WRITE_TOOL } from './fs-file-write.js';
export { ADAPTER_CODES, type AdapterCode } from './adapter-codes.js';
export { prepareCanonicalCall } from './prepared-call.js';
export { performVerified } from './perform-verified.js';
export { safeFileName } from './outbox-names.js';
export { parseSandboxPath, type SandboxPath } from './sandbox-path.js';
export { checkConfinedTarget, writeConfined, type ConfinedTarget, type ConfinementArea } from './confined-write.js';
