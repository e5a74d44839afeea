import { test } from 'node:test';
import assert from 'node:assert/strict';
import ts from 'typescript';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { CALL_ERROR_CODES, HANDOVER_ERROR_CODES, HTTP_STATUS, ROUTE_ERROR_CODES, RPC, RPC_REFUSALS, SETTINGS_ERROR_CODES, USER_ERROR_CODES, isServerErrorCode } from '../main/core/wire-errors.js';
import { nodes, numberValue, sources, where, type SourceFile } from './helpers/source-scan.js';
import { tempHome } from './helpers/env.js';
import { startHubProcess } from './helpers/hub.js';

/**
 * One closed wire vocabulary (core/wire-errors.ts): every JSON-RPC number and every error code string
 * Pincer sends is declared there, each string with its one HTTP status, and no other module of main/
 * writes a JSON-RPC number, an undeclared code or an error status as a literal.
 */

const VOCABULARY = 'main/core/wire-errors.ts';
const DECLARED: ReadonlySet<string> = new Set<string>([...USER_ERROR_CODES, ...CALL_ERROR_CODES, ...SETTINGS_ERROR_CODES, ...HANDOVER_ERROR_CODES, ...ROUTE_ERROR_CODES]);

test('the standard numbers are the SDK’s, and every refusal and code has one status', () => {
  for (const k of ['ParseError', 'InvalidRequest', 'MethodNotFound', 'InvalidParams', 'InternalError', 'ResourceNotFound', 'MissingRequiredClientCapability'] as const) assert.equal(RPC[k], ProtocolErrorCode[k], k);
  for (const [name, r] of Object.entries(RPC_REFUSALS)) {
    assert.ok(Object.values(RPC).includes(r.code), `${name}: a declared JSON-RPC number`);
    assert.ok(r.status >= 400 && r.status < 600, `${name}: an error status`);
  }
  const all = [...USER_ERROR_CODES, ...CALL_ERROR_CODES, ...SETTINGS_ERROR_CODES, ...HANDOVER_ERROR_CODES, ...ROUTE_ERROR_CODES];
  // STORE_UNAVAILABLE is both a UserError's reason and a call's outcome, with one meaning and one status.
  assert.deepEqual(all.filter((c, i) => all.indexOf(c) !== i), ['STORE_UNAVAILABLE'], 'each code is declared in one family');
  assert.deepEqual(Object.keys(HTTP_STATUS).sort(), [...DECLARED].sort(), 'every declared code has its status, and nothing else does');
  // "Not found" has two spellings with two meanings: an unknown tool (a call's outcome) and anything else.
  assert.deepEqual([...DECLARED].filter((c) => /NOT_FOUND|^NO_/.test(c)).sort(), ['NOT_FOUND', 'TOOL_NOT_FOUND']);
  assert.equal(isServerErrorCode(RPC.ServerError), true);
  assert.equal(isServerErrorCode(-31999), false);
  assert.equal(isServerErrorCode(-32000.5), false);
});

/** A literal HTTP error status where a response is written: `res.status(404)`, `writeHead(413, …)`, `sendJson(res, 503, …)`, `{ status: 503 }`. */
function statusLiteral(file: SourceFile, n: ts.Node): string | undefined {
  const isError = (e: ts.Node | undefined) => e !== undefined && (numberValue(e) ?? 0) >= 400 && (numberValue(e) ?? 0) < 600;
  if (ts.isCallExpression(n)) {
    const callee = n.expression;
    const name = ts.isPropertyAccessExpression(callee) ? callee.name.text : ts.isIdentifier(callee) ? callee.text : '';
    if ((name === 'status' || name === 'writeHead' || name === 'sendStatus') && isError(n.arguments[0])) return where(file, n);
    if ((name === 'sendJson' || name === 'refuseUpgrade') && isError(n.arguments[1])) return where(file, n);
  }
  if (ts.isPropertyAssignment(n) && ts.isIdentifier(n.name) && n.name.text === 'status' && isError(n.initializer)) return where(file, n);
  return undefined;
}

/** An error body written inline with a code the vocabulary does not declare: `{ code: 'NO_SUCH', message }`. */
function undeclaredCode(file: SourceFile, n: ts.Node): string | undefined {
  if (!ts.isObjectLiteralExpression(n)) return undefined;
  const props = new Map(n.properties.filter(ts.isPropertyAssignment).filter((p) => ts.isIdentifier(p.name)).map((p) => [(p.name as ts.Identifier).text, p.initializer]));
  const code = props.get('code');
  if (!code || !props.has('message') || !(ts.isStringLiteral(code) || ts.isNoSubstitutionTemplateLiteral(code))) return undefined;
  return /^[A-Z][A-Z0-9_]+$/.test(code.text) && !DECLARED.has(code.text) ? where(file, n) : undefined;
}

test('no module of main/ but the vocabulary writes a JSON-RPC number, an undeclared code or an error status', () => {
  const found: string[] = [];
  let seen = 0;
  for (const file of sources(['main'])) {
    for (const n of nodes(file)) {
      const rpc = numberValue(n);
      const hit = (rpc !== undefined && isServerErrorCode(rpc) && !ts.isPrefixUnaryExpression(n.parent) ? where(file, n) : undefined) ?? statusLiteral(file, n) ?? undeclaredCode(file, n);
      if (file.rel === VOCABULARY) seen += hit ? 1 : 0;
      else if (hit) found.push(hit);
    }
  }
  assert.deepEqual(found, [], `declare it in ${VOCABULARY} (RPC, RPC_REFUSALS, a code family with its HTTP_STATUS) and use the name`);
  assert.ok(seen > 20, `the scan sees the vocabulary's own numbers and statuses (${seen})`);
});

test('a hub answers each refusal with its declared code and status', { timeout: 60_000 }, async () => {
  const h = tempHome();
  const hub = await startHubProcess(h.home);
  try {
    const ask = async (method: string, path: string, body?: string) => {
      const r = await fetch(`${hub.url}${path}`, { method, headers: hub.headers(), ...(body !== undefined ? { body } : {}) });
      return { status: r.status, body: (await r.json()) as { code?: string; error: { code: string | number; message: string } } };
    };
    const rest: [string, string, string | undefined, string][] = [
      ['GET', '/api/no-such-route', undefined, 'NOT_FOUND'],
      ['GET', '/api/jobs/99999', undefined, 'NOT_FOUND'],
      ['GET', '/api/activity/nope', undefined, 'NOT_FOUND'],
      ['GET', '/api/settings/secret/TOOLS', undefined, 'NOT_FOUND'],
      ['GET', '/api/mcp/tools/NoSuchTool', undefined, 'TOOL_NOT_FOUND'],
      ['POST', '/api/tools/NoSuchTool', '{"enabled": true}', 'TOOL_NOT_FOUND'],
      ['GET', '/api/mcp/tools/stream/nogroup', undefined, 'NOT_FOUND'],
      ['POST', '/api/mcp/tools/call', '{"name": "NoSuchTool"}', 'TOOL_NOT_FOUND'],
      ['POST', '/api/mcp/tools/call', '{"arguments": {}}', 'INVALID_INPUT'],
      ['POST', '/api/serving', '{"on": "yes"}', 'INVALID_INPUT'],
      ['POST', '/api/serving', '{not json', 'INVALID_INPUT'],
    ];
    for (const [method, path, body, code] of rest) {
      const r = await ask(method, path, body);
      assert.deepEqual([r.status, r.body.error.code], [HTTP_STATUS[code as keyof typeof HTTP_STATUS], code], `${method} ${path}: ${JSON.stringify(r.body)}`);
      assert.ok(r.body.error.message.length > 10, `${method} ${path} says why`);
    }
    const rpc: [string, string, string | undefined, keyof typeof RPC_REFUSALS][] = [
      ['GET', '/api/mcp/jsonrpc', undefined, 'METHOD_NOT_ALLOWED'],
      ['POST', '/api/mcp/jsonrpc/nogroup', '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', 'METHOD_NOT_FOUND'],
      ['POST', '/mcp', '{not json', 'PARSE_ERROR'],
      ['POST', '/messages?sessionId=none', '{}', 'SESSION_NOT_FOUND'],
    ];
    for (const [method, path, body, refusal] of rpc) {
      const r = await ask(method, path, body);
      assert.deepEqual([r.status, r.body.error.code], [RPC_REFUSALS[refusal].status, RPC_REFUSALS[refusal].code], `${method} ${path}: ${JSON.stringify(r.body)}`);
    }
    const anonymous = await fetch(`${hub.url}/api/overview`);
    assert.deepEqual([anonymous.status, ((await anonymous.json()) as { error: { code: number } }).error.code], [RPC_REFUSALS.UNAUTHORIZED.status, RPC.Unauthorized]);
  } finally {
    await hub.stop();
    h.cleanup();
  }
});
