import { TOOL_PATTERN } from '../actionpass/action.js';
import { SvcError } from '../errors.js';
import { ADAPTER_CODES } from './adapter-codes.js';
import type { ToolHandler } from './tool-handler.js';

/**
 * The tools this process can execute, one handler each. Registering a second handler for a tool
 * is an error rather than a replacement: a handler that silently took over `chat.message.send`
 * would receive every authorized call for it.
 */
export class HandlerRegistry {
  // A Map, not an object: a tool named like an Object.prototype key must not find a handler.
  readonly #handlers = new Map<string, ToolHandler>();

  register(handler: ToolHandler): this {
    if (typeof handler.tool !== 'string' || !TOOL_PATTERN.test(handler.tool)) {
      throw new SvcError(ADAPTER_CODES.handlerInvalid, `a handler's tool must be a dotted name <area>.<resource>.<verb>, got ${JSON.stringify(handler.tool)}`);
    }
    if (typeof handler.validate !== 'function' || typeof handler.execute !== 'function') {
      throw new SvcError(ADAPTER_CODES.handlerInvalid, `the handler for ${handler.tool} must have validate() and execute()`);
    }
    if (this.#handlers.has(handler.tool)) throw new SvcError(ADAPTER_CODES.handlerDuplicate, `a handler for ${handler.tool} is already registered`);
    this.#handlers.set(handler.tool, handler);
    return this;
  }

  get(tool: string): ToolHandler | undefined {
    return this.#handlers.get(tool);
  }

  /** The registered tool names, sorted, so listings and health output are stable. */
  tools(): string[] {
    return [...this.#handlers.keys()].sort();
  }
}
