import { fromJsonSchema, type Tool } from '@modelcontextprotocol/server';
import { errorMessage } from '../core/errors.js';
import { logger } from '../core/log.js';

const log = logger('calls');

type Check = (value: unknown) => string | undefined;

/** What a schema the validator cannot compile (an unknown `$schema` dialect) answers: nothing can be said. */
export const UNCHECKED = 'unchecked';

/**
 * Checks a structured result against the output schema Pincer published for its tool, with the
 * validator the SDK's clients use (ajv: `strict: false`, formats, all errors) — the check Claude
 * Code, Gemini CLI and both SDK clients run before they accept a result. A result that fails it
 * would make the client throw the whole call away, notices included (ARCHITECTURE §1).
 */
export class OutputChecks {
  /** Compiled once per published schema (a plugin's reload publishes a new object). */
  private checks = new WeakMap<object, Check>();

  /**
   * Undefined when `value` validates against `schema`; else what is wrong, in the validator's words,
   * or UNCHECKED when the schema does not compile.
   */
  problem(schema: NonNullable<Tool['outputSchema']>, value: unknown): string | undefined {
    let check = this.checks.get(schema);
    if (!check) {
      check = compile(schema);
      this.checks.set(schema, check);
    }
    return check(value);
  }
}

function compile(schema: NonNullable<Tool['outputSchema']>): Check {
  let standard: ReturnType<typeof fromJsonSchema>;
  try {
    standard = fromJsonSchema(schema);
  } catch (err) {
    // The client's validator may know the dialect: the tool's own result goes out as it is, and
    // nothing Pincer would add to it does.
    log.warn(`an output schema could not be compiled: ${errorMessage(err)}`, { err });
    return () => UNCHECKED;
  }
  return (value) => {
    if (value === undefined) return 'it has an output schema but returned no structured content';
    const verdict = standard['~standard'].validate(value);
    // The SDK's JSON Schema validator answers synchronously; a promise would mean another one.
    if (verdict instanceof Promise) return 'its output schema has an asynchronous validator';
    return verdict.issues ? verdict.issues.map((i) => i.message).join('; ') : undefined;
  };
}
