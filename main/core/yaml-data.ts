import { createRequire } from 'node:module';
import type { Document, LineCounter } from 'yaml';
import { errorMessage } from './errors.js';

/** A YAML (or JSON) text read as data, with what finds the line of a value; or where and why it cannot be. */
export type YamlRead = { ok: true; doc: Document; lines: LineCounter; data: unknown } | { ok: false; line: number; message: string };

/**
 * Reads a YAML or JSON text a person wrote (a command tool, a skill's front matter) so that nothing
 * in it can throw: a syntax error is its first error's line; what parsing lets through but turning
 * it into data refuses — aliases (`*name`) expanded more often than the `yaml` library's guard allows
 * (a "billion laughs" text), nesting deep enough to exhaust the stack, a tag it cannot build — is a
 * problem too, at the first alias's line when it is about aliases. Lines count from 1 in `text`.
 */
export function readYaml(text: string, opts: { uniqueKeys?: boolean } = {}): YamlRead {
  // Loaded on first use: most processes read no YAML.
  const { parseDocument, LineCounter, visit } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const lines = new LineCounter();
  let doc: Document;
  try {
    doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: opts.uniqueKeys ?? true });
  } catch (err) {
    return { ok: false, line: 1, message: `cannot be parsed: ${errorMessage(err)}` };
  }
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    return { ok: false, line: lines.linePos(e.pos[0]).line, message: e.message.split('\n')[0]! };
  }
  try {
    return { ok: true, doc, lines, data: doc.toJS() };
  } catch (err) {
    if (!/alias/i.test(errorMessage(err))) return { ok: false, line: 1, message: `cannot be read as data: ${errorMessage(err)}` };
    let line = 1;
    visit(doc, {
      Alias(_key, node) {
        if (node.range) line = lines.linePos(node.range[0]).line;
        return visit.BREAK;
      },
    });
    return { ok: false, line, message: `it uses aliases (*name) more often than Pincer expands (${errorMessage(err)}); write the values out instead` };
  }
}
