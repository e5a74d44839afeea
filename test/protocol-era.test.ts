import { test } from 'node:test';
import assert from 'node:assert/strict';
import ts from 'typescript';
import { SUPPORTED_PROTOCOL_VERSIONS, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { eraOf, envelopeVersion, isModernEnvelope, MODERN_VERSIONS, primesStreams } from '../main/mcp/protocol-era.js';
import { discoverResult } from '../main/mcp/server-info.js';
import { nodes, sources, where } from './helpers/source-scan.js';

/**
 * "Which generation is this" is answered by one module (main/mcp/protocol-era.ts), as the SDK's own
 * protocolEras does; nothing else in main/ names a protocol version or compares one.
 */

const ERA_MODULE = 'main/mcp/protocol-era.ts';

test('versions fall into the eras the SDK draws', () => {
  for (const v of SUPPORTED_PROTOCOL_VERSIONS) assert.equal(eraOf(v), 'legacy', v);
  for (const v of MODERN_VERSIONS) assert.equal(eraOf(v), 'modern', v);
  assert.equal(eraOf('2027-01-01'), 'modern', 'a later revision stays modern');
  for (const none of [undefined, null, '', 20260728, {}]) assert.equal(eraOf(none), undefined, String(none));
  assert.deepEqual(discoverResult().supportedVersions, [...MODERN_VERSIONS], 'server/discover advertises the modern revisions');
  assert.equal(primesStreams('2025-11-25'), true);
  assert.equal(primesStreams('2025-06-18'), false);
});

test("a request's own envelope decides, under the SDK's key", () => {
  const modern = { _meta: { [PROTOCOL_VERSION_META_KEY]: '2026-07-28' } };
  assert.equal(envelopeVersion(modern), '2026-07-28');
  assert.equal(isModernEnvelope(modern), true);
  assert.equal(isModernEnvelope({ _meta: { [PROTOCOL_VERSION_META_KEY]: '2025-11-25' } }), false);
  for (const none of [undefined, null, 'x', {}, { _meta: null }, { _meta: { protocolVersion: '2026-07-28' } }]) assert.equal(isModernEnvelope(none), false, JSON.stringify(none));
});

test('no module of main/ but protocol-era.ts names a protocol version or compares one', () => {
  const found: string[] = [];
  const isVersion = (n: ts.Node) => (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && /^\d{4}-\d{2}-\d{2}$/.test(n.text);
  const ordering = new Set([ts.SyntaxKind.LessThanToken, ts.SyntaxKind.LessThanEqualsToken, ts.SyntaxKind.GreaterThanToken, ts.SyntaxKind.GreaterThanEqualsToken]);
  const files = sources(['main']);
  for (const file of files) {
    if (file.rel === ERA_MODULE) continue;
    for (const n of nodes(file)) {
      if (isVersion(n)) found.push(where(file, n));
      else if (ts.isBinaryExpression(n) && ordering.has(n.operatorToken.kind) && /protocol_?version|negotiated|envelope/i.test(`${n.left.getText(file.ast)} ${n.right.getText(file.ast)}`)) found.push(where(file, n));
    }
  }
  assert.deepEqual(found, [], 'ask main/mcp/protocol-era.ts (eraOf, isModernEnvelope) or mcp/request-context.ts (requestEra) instead');
  // The check itself sees what it looks for: the era module names the first modern revision.
  const era = files.find((f) => f.rel === ERA_MODULE);
  assert.ok(era && [...nodes(era)].some(isVersion), `${ERA_MODULE} was scanned and holds the versions`);
});
