import type express from 'express';
import { z } from 'zod';
import type { ClientConnectView, ConnectOutcome, ConnectService } from '../../core/client-connect.js';
import { UserError } from '../../core/errors.js';
import { objectBody } from '../express-body.js';
import { fail } from './replies.js';

/** GET /api/connect: the clients Pincer connects, or why this hub cannot connect them. */
export interface ConnectView {
  available: boolean;
  clients: ClientConnectView[];
  why?: string;
}

export type { ClientConnectView, ConnectOutcome };

const Toggle = z.object({ connect: z.boolean() });

/**
 * The dashboard's Connect page: the tray's *Connect a client*, the same service (core/client-connect.ts).
 * Writing a client's config decides what that client runs, so these routes sit behind the same guard as
 * settings writes (the token or a dashboard sign-in, Host/Origin checks); the page picks only a client
 * from the closed list and on or off — the entry written is the one this Pincer's creator made.
 */
export function connectRoutes(r: express.Router, service: ConnectService | undefined): void {
  r.get('/api/connect', (_req, res) => {
    const view: ConnectView = service
      ? { available: true, clients: service.clients() }
      : { available: false, clients: [], why: 'This hub was started without a way to write client configs; run "pincer connect <client>" in a terminal.' };
    res.json(view);
  });

  const answer = async (res: express.Response, work: () => Promise<ConnectOutcome>) => {
    try {
      res.json({ success: true, outcome: await work() });
    } catch (err) {
      // A broken config file, an unknown client, a bundle that cannot open: said as it is, nothing changed.
      if (!(err instanceof UserError)) throw err;
      fail(res, err.code, err.message);
    }
  };

  r.post('/api/connect/claude-desktop/bundle', async (_req, res) => {
    if (!service?.installBundle) return fail(res, 'NOT_FOUND', 'Only the Pincer app can open the Claude Desktop bundle; connect Claude Desktop through its config file here.');
    await answer(res, () => service.installBundle!());
  });

  r.post('/api/connect/:client', async (req, res) => {
    if (!service) return fail(res, 'UNAVAILABLE', 'This hub was started without a way to write client configs; run "pincer connect <client>" in a terminal.');
    const value = objectBody(req, res);
    if (!value) return;
    const b = Toggle.safeParse(value);
    if (!b.success) return fail(res, 'INVALID_INPUT', 'Send {"connect": true} to connect or {"connect": false} to disconnect.');
    const id = String(req.params.client);
    await answer(res, () => (b.data.connect ? service.connect(id) : service.disconnect(id)));
  });
}
