/**
 * The error codes adapters throw or report, in one place so the proxy, the docs and the tests
 * agree on them. Codes thrown before `verifyBeforeSideEffect` mean nothing happened (the
 * enforcer records execution.blocked and spends the ActionPass, which was issued for this one
 * attempt); codes reported in a 'failed' ExecutionResult mean the side effect was attempted after
 * verification and did not complete.
 */
export const ADAPTER_CODES = {
  /** The handler was given an action for another tool. */
  toolMismatch: 'adapter_tool_mismatch',
  /** Resource or payload do not match the tool's schema (extra keys, wrong types, limits). */
  schemaInvalid: 'schema_invalid',
  /** The resource is not of the kind the tool acts on, or its name is malformed. */
  resourceInvalid: 'adapter_resource_invalid',
  /** The payload names another target than the resource the policy decided on. */
  resourceMismatch: 'adapter_resource_mismatch',
  /** The payload cannot be written as RFC 8785 JSON (for example a lone surrogate). */
  payloadNotCanonical: 'adapter_payload_not_canonical',
  /** Handler registration problems. */
  handlerDuplicate: 'adapter_handler_duplicate',
  handlerInvalid: 'adapter_handler_invalid',
  /** demoHandlers() was given a relative or empty directory. */
  configInvalid: 'adapter_config_invalid',
  /** The side effect failed after verification (I/O error, disk full, ...). */
  writeFailed: 'adapter_write_failed',

  /** fs.file.write: the path is absolute. */
  sandboxPathAbsolute: 'sandbox_path_absolute',
  /** fs.file.write: the path has a `..` segment. */
  sandboxPathTraversal: 'sandbox_path_traversal',
  /** fs.file.write: NUL, backslash, empty or `.` segments, over-long names. */
  sandboxPathInvalid: 'sandbox_path_invalid',
  /** A symbolic link at or below the sandbox root, anywhere along the target path. */
  sandboxSymlink: 'sandbox_symlink',
  /** A parent along the path exists and is not a directory. */
  sandboxNotDirectory: 'sandbox_not_directory',
  /** The target exists and is not a regular file (a directory, a FIFO, a device...). */
  sandboxTargetNotFile: 'sandbox_target_not_file',

  /** A channel, address or action id that cannot be a single safe file name in the outbox. */
  outboxNameUnsafe: 'outbox_name_unsafe',
  outboxSymlink: 'outbox_symlink',
  outboxNotDirectory: 'outbox_not_directory',
  outboxTargetNotFile: 'outbox_target_not_file',
} as const;

export type AdapterCode = (typeof ADAPTER_CODES)[keyof typeof ADAPTER_CODES];
