import { test } from 'node:test';
import assert from 'node:assert/strict';
import ts from 'typescript';
import { commentsOfEmptyBlock, nodes, sources, where, type SourceFile } from './helpers/source-scan.js';

/**
 * Failures are handled, logged, or silent with a reason (ARCHITECTURE §6, "Catch blocks"), held
 * mechanically over main/, preload/ and the dashboard: no `.catch(() => undefined)` or `.catch(() => {})`
 * (use `.catch(ignoreFailure(log, 'what it was'))`, which logs at debug), no empty `catch {}`, and a
 * catch whose body is only a comment says why silence is right in it. What must stay silent without
 * a logger is listed below with its reason.
 */

/** Reviewed exceptions: `file` and the catch's own text (as the failure message shows it), with why. */
const ALLOWED: { file: string; text: string; why: string }[] = [];

/** A comment that gives a reason: a few words, not a bare "ignore". */
function saysWhy(comments: string[]): boolean {
  const words = comments.join(' ').replace(/\/\/|\/\*|\*\//g, ' ').trim().split(/\s+/).filter((w) => /[a-z]/i.test(w));
  return words.length >= 3 && !/^(ignored?|nothing|noop|no-op)\.?$/i.test(words.join(' '));
}

/** `undefined`, `null`, `void 0`: a value that says nothing happened. */
function nothing(e: ts.Expression | undefined): boolean {
  return !e || (ts.isIdentifier(e) && e.text === 'undefined') || e.kind === ts.SyntaxKind.NullKeyword || (ts.isVoidExpression(e) && ts.isLiteralExpression(e.expression));
}

/**
 * A handler that does nothing — `() => undefined`, `() => null`, `() => {}`, `() => { return undefined; }` —
 * unless a comment inside it says why. (Such a handler holds no string a comment could hide in.)
 */
function silentHandler(h: ts.Expression | undefined, text: (n: ts.Node) => string): boolean {
  if (!h || !(ts.isArrowFunction(h) || ts.isFunctionExpression(h))) return false;
  const body = h.body;
  const empty = ts.isBlock(body) ? body.statements.every((s) => ts.isReturnStatement(s) && nothing(s.expression)) : nothing(body);
  return empty && !saysWhy(text(h).match(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g) ?? []);
}

function findings(file: SourceFile): { at: string; text: string }[] {
  const out: { at: string; text: string }[] = [];
  for (const n of nodes(file)) {
    if (ts.isCatchClause(n) && n.block.statements.length === 0 && !saysWhy(commentsOfEmptyBlock(file, n.block))) {
      out.push({ at: where(file, n), text: n.getText(file.ast) });
    } else if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression)) {
      const method = n.expression.name.text;
      const handler = method === 'catch' ? n.arguments[0] : method === 'then' ? n.arguments[1] : undefined;
      if (silentHandler(handler, (h) => h.getText(file.ast))) out.push({ at: where(file, n), text: `.${method}(${n.arguments.map((a) => a.getText(file.ast)).join(', ')})` });
    }
  }
  return out;
}

test('no failure is swallowed without a word: every catch handles, logs or says why', () => {
  const files = sources(['main', 'preload', 'renderer/src']);
  const found: string[] = [];
  const used = new Set<(typeof ALLOWED)[number]>();
  for (const file of files) {
    for (const f of findings(file)) {
      const allowed = ALLOWED.find((a) => a.file === file.rel && f.text.replace(/\s+/g, ' ').includes(a.text));
      if (allowed) used.add(allowed);
      else found.push(f.at);
    }
  }
  assert.deepEqual(found, [], "use .catch(ignoreFailure(log, 'what it was')), handle the failure, or say in the catch why silence is right");
  assert.deepEqual(ALLOWED.filter((a) => !used.has(a)).map((a) => `${a.file}: ${a.text}`), [], 'an allow-list entry that matches nothing any more goes');
});

test('the lint sees what it forbids', () => {
  const probe = (text: string) => findings({ rel: 'probe.ts', ast: ts.createSourceFile('probe.ts', text, ts.ScriptTarget.Latest, true) }).length;
  assert.equal(probe('p.catch(() => undefined);'), 1);
  assert.equal(probe('p.catch(() => {});'), 1);
  assert.equal(probe('p.catch((_e) => null);'), 1);
  assert.equal(probe('p.then(f, () => undefined);'), 1);
  assert.equal(probe('try { f(); } catch {}'), 1);
  assert.equal(probe('try { f(); } catch { /* ignore */ }'), 1, 'a comment that gives no reason');
  assert.equal(probe('try { f(); } catch {\n  // Gone already: nothing to close.\n}'), 0);
  assert.equal(probe('p.catch(() => {\n  // The client left: nobody is waiting for this.\n});'), 0);
  assert.equal(probe("p.catch(ignoreFailure(log, 'closing'));"), 0);
  assert.equal(probe('p.catch(() => { return undefined; });'), 1);
  assert.equal(probe('p.catch(() => void 0);'), 1);
  assert.equal(probe('p.catch(() => {\n  // Gone: nothing is waiting for it.\n  return undefined;\n});'), 0);
  assert.equal(probe('p.catch(() => /* roots unknown: the next rule decides */ undefined);'), 0);
  assert.equal(probe('p.catch(() => void res.end());'), 0, 'a call is handling');
  assert.equal(probe('p.catch(() => ({}));'), 0, 'a fallback value is handling');
  assert.equal(probe('try { f(); } catch (err) { log.warn("x", { err }); }'), 0);
});
