import express from 'express';
import { OAUTH_ABSENT } from '../core/wire-errors.js';

/**
 * Pincer signs clients in with a bearer token, not OAuth. A client that meets
 * a 401 (a wrong or rotated token) looks for OAuth metadata, client
 * registration and an authorization page; answering 401 there too makes
 * mcp-remote wait for a browser sign-in that never comes. 404 — "there is no
 * OAuth here" — is what the MCP authorization spec (2025-11-25, 2026-07-28)
 * tells clients to treat as "this server has no authorization server", so
 * they stop at once with an error the person can act on.
 */
export const OAUTH_PATHS = [
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/*rest',
  '/.well-known/oauth-authorization-server',
  '/.well-known/oauth-authorization-server/*rest',
  '/.well-known/openid-configuration',
  '/.well-known/openid-configuration/*rest',
  '/register',
  '/authorize',
  '/token',
];

export function oauthAbsentRoutes(): express.Router {
  const r = express.Router();
  r.all(OAUTH_PATHS, (req, res) => {
    res.status(OAUTH_ABSENT.status).json({
      error: OAUTH_ABSENT.error,
      error_description:
        `Pincer has no OAuth (${req.path}). Send the header "Authorization: Bearer <token>"; ` +
        '`pincer token` prints the token (it changes when rotated).',
    });
  });
  return r;
}
