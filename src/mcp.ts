/**
 * `svc/mcp`: MCP action normalization, tool-definition hashing, the signed pin lock and its
 * deciders, and the wrapper behind `svc mcp serve` (docs/mcp.md).
 */
export { DEFINITION_FIELDS, definitionHash, presentTool, toolDefinition, type PresentedTool, type ToolDefinition } from './mcp/tool-definition.js';
export { callGuard, decidePinCheck, isListed, pinEvents, type RecordedTool, type ServerPins, type ToolStanding } from './mcp/pin-check.js';
export { checkPinLock, parsePinLock, PIN_LOCK_FORMAT, PIN_STATEMENT_TYPE, pinStatement, readPinLock, serializePinLock, signPin, type PinEntry, type PinLock, type PinProblem } from './mcp/pin-lock.js';
export { PinBook, type PinPlaces } from './mcp/pin-book.js';
export { mcpActionInput, mcpToolName, type McpCaller } from './mcp/mcp-action.js';
export { McpWrapper, type WrapperOptions } from './mcp/mcp-wrapper.js';
export { serveMcp, type RunningWrapper, type ServeOptions } from './mcp/serve-mcp.js';
export { approvePins, fetchDefinitions, listPins, resetPins } from './mcp/pins-admin.js';
