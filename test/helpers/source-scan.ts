import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ROOT } from './env.js';

/**
 * Pincer's own TypeScript sources parsed by the TypeScript compiler, for the tests that hold a house
 * rule mechanically (one protocol-era module, one wire vocabulary, no silent catch): they look at the
 * syntax tree, so comments and strings that only mention a thing never count as using it.
 */

export interface SourceFile {
  /** Repository-relative, with forward slashes: `main/mcp/server.ts`. */
  rel: string;
  ast: ts.SourceFile;
}

/** Every .ts/.tsx file under these repository folders (default: main/). */
export function sources(dirs: string[] = ['main']): SourceFile[] {
  const out: SourceFile[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) {
        const text = fs.readFileSync(path.join(ROOT, rel), 'utf8');
        out.push({ rel, ast: ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, true, e.name.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS) });
      }
    }
  };
  for (const d of dirs) walk(d);
  assert(out.length > 0, `no sources under ${dirs.join(', ')} (looked in ${ROOT})`);
  return out;
}

function assert(ok: boolean, message: string): void {
  if (!ok) throw new Error(message);
}

/** Every node of a file, depth first. */
export function* nodes(file: SourceFile): Generator<ts.Node> {
  const stack: ts.Node[] = [file.ast];
  while (stack.length) {
    const n = stack.pop()!;
    yield n;
    const kids: ts.Node[] = [];
    n.forEachChild((c) => void kids.push(c));
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
  }
}

/** `file:line: text` of a node, for a failure message a reader can jump to. */
export function where(file: SourceFile, node: ts.Node): string {
  const { line } = file.ast.getLineAndCharacterOfPosition(node.getStart(file.ast));
  const text = node.getText(file.ast).replace(/\s+/g, ' ');
  return `${file.rel}:${line + 1}: ${text.length > 120 ? `${text.slice(0, 117)}…` : text}`;
}

/** The comments inside a block that holds no statement (`catch { // why }`), as written. */
export function commentsOfEmptyBlock(file: SourceFile, block: ts.Block): string[] {
  const inner = file.ast.text.slice(block.getStart(file.ast) + 1, block.end - 1);
  return (ts.getLeadingCommentRanges(inner, 0) ?? []).map((r) => inner.slice(r.pos, r.end));
}

/** A numeric literal with its sign: `-32000` is a prefix minus over 32000. */
export function numberValue(node: ts.Node): number | undefined {
  if (ts.isNumericLiteral(node)) return Number(node.text);
  if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(node.operand)) return -Number(node.operand.text);
  return undefined;
}
