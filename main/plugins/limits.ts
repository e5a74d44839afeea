/**
 * What one plugin item may publish. Every client receives each tool's description and schemas in
 * every tools/list, so a description or schema past these is refused with a warning naming its
 * file and line (docs/PLUGINS.md) rather than sent to every model on every list.
 */
export const MAX_DESCRIPTION_CHARS = 8192;
/** A tool's input or output schema, as JSON. */
export const MAX_SCHEMA_CHARS = 64 * 1024;
/** A command-tool file is read only up to this size; a larger one is refused before it is parsed. */
export const MAX_COMMAND_FILE_BYTES = 256 * 1024;

export function schemaTooLarge(schema: unknown): boolean {
  return (JSON.stringify(schema)?.length ?? 0) > MAX_SCHEMA_CHARS;
}
