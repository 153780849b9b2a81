import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claudeCodeInputSchema, readInput } from '../../../src/hooks/runtimes/claude-code.js';

/** Any JSON value, weighted towards the types each field is expected to hold. */
const anyJson = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 2 }), fc.dictionary(fc.string({ maxLength: 8 }), fc.string(), { maxKeys: 3 }));
const field = (usual: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> => fc.oneof({ arbitrary: usual, weight: 4 }, { arbitrary: anyJson, weight: 1 });

const event = fc.record(
  {
    session_id: field(fc.string()),
    cwd: field(fc.constantFrom('/home/dev/shop', '/', 'relative')),
    transcript_path: field(fc.string()),
    permission_mode: field(fc.constantFrom('default', 'plan', 'bypassPermissions')),
    hook_event_name: field(fc.constantFrom('PreToolUse', 'UserPromptSubmit', 'PostToolUse', 'pretooluse')),
    tool_name: field(fc.constantFrom('Bash', 'Read', '', 'mcp__github__create_issue')),
    tool_input: field(fc.dictionary(fc.constantFrom('command', 'file_path', 'pattern'), anyJson, { maxKeys: 3 })),
    prompt: field(fc.string()),
    tool_use_id: field(fc.string()),
  },
  { requiredKeys: [] },
);

describe('claude-code input: the hand-written reader answers as the schema does', () => {
  it('accepts exactly what the schema accepts, with the same fields, and refuses the rest with the schema\'s error', () => {
    fc.assert(
      fc.property(event, (value) => {
        const input = value as Record<string, unknown>;
        const expected = claudeCodeInputSchema.safeParse(input);
        if (expected.success) expect(readInput(input)).toEqual(expected.data);
        else expect(() => readInput(input)).toThrow(/^claude-code hook input: /);
      }),
      { numRuns: 5_000 },
    );
  });
});
