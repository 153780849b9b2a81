import { hashCanonical, type Sha256 } from '../events/canonical.js';

/**
 * A tool's identity as svc pins it: the six fields an agent reads to decide what a tool does and
 * what it sends (name, title, description, input and output schemas, annotations), whole schema
 * trees included. `_meta`, `icons` and fields a later protocol adds are left out, so an upstream
 * that only decorates its tools is not reported as changed.
 *
 *   definitionHash = sha256(JCS({ name, title, description, inputSchema, outputSchema, annotations }))
 *
 * Absent fields are absent from the object (JCS leaves them out), never `null`.
 */
export interface ToolDefinition {
  name: string;
  title?: unknown;
  description?: unknown;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}

export const DEFINITION_FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;

export type PresentedTool = { name: string; definition: ToolDefinition; hash: Sha256 } | { name: string; invalid: string };

/** The definition of a tool object as the upstream listed it; undefined when it has no string name. */
export function toolDefinition(tool: unknown): ToolDefinition | undefined {
  if (typeof tool !== 'object' || tool === null || Array.isArray(tool)) return undefined;
  const record = tool as Record<string, unknown>;
  if (typeof record.name !== 'string') return undefined;
  const definition: ToolDefinition = { name: record.name };
  for (const field of DEFINITION_FIELDS) {
    if (field !== 'name' && Object.hasOwn(record, field) && record[field] !== undefined) definition[field] = record[field];
  }
  return definition;
}

export function definitionHash(definition: ToolDefinition): Sha256 {
  return hashCanonical(definition);
}

/**
 * Hashes one listed tool. A definition JCS cannot represent (a lone surrogate in a description)
 * has no hash and so can never match a pin: it is reported, not guessed at.
 */
export function presentTool(tool: unknown): PresentedTool | undefined {
  const definition = toolDefinition(tool);
  if (definition === undefined) return undefined;
  try {
    return { name: definition.name, definition, hash: definitionHash(definition) };
  } catch (error) {
    return { name: definition.name, invalid: `its definition has no canonical JSON form (${(error as Error).message})` };
  }
}
