import { z } from 'zod';
import { defineTool, textResult } from '../types.js';
import { UserError } from '../../core/errors.js';
import { formatDuration } from '../../core/format.js';
import type { CallbackRow } from '../../store/callbacks.js';

const cbShape = z.object({
  callback_id: z.number().int().describe('Slot id 0-7'),
  message: z.string(),
  delay_seconds: z.number().int(),
  fires_left: z.number().int().nullable().describe('null: until cancelled'),
  next_fire_in_ms: z.number(),
});

function data(c: CallbackRow): z.infer<typeof cbShape> {
  return {
    callback_id: c.slot,
    message: c.message,
    delay_seconds: c.delay_s,
    fires_left: c.repeat_total === -1 ? null : c.repeat_total - c.fires_done,
    next_fire_in_ms: Math.max(0, c.next_fire_at - Date.now()),
  };
}

function preview(s: string): string {
  const flat = s.replace(/\s+/g, ' ');
  return flat.length > 60 ? flat.slice(0, 57) + '...' : flat;
}

export const setCallbackTool = defineTool({
  name: 'SetCallback',
  title: 'Set a timer that reminds you',
  group: 'workflow',
  description:
    'Schedule a message to come back to you later: set (message fires after delay_seconds 1-3600, then again every delay_seconds, ' +
    'repeat_count times in all; default 20, -1 until cancelled; callback_id picks a free slot), list (active callbacks with time to next ' +
    'fire and fires left), cancel (callback_id, or all: true to cancel every callback). Fired messages arrive at the start of your next tool result (and in its pincer_notices field). Use it to check on ' +
    'background jobs or to pace long work. At most 8 callbacks at once (ids 0-7).',
  inputSchema: z.object({
    action: z.enum(['set', 'list', 'cancel'], { error: 'action must be set, list or cancel' }).optional().describe('Action: set, list, cancel (default set)'),
    message: z.string().max(2048, 'message must be at most 2048 characters').optional().describe('Callback message'),
    delay_seconds: z.number().int().min(1, 'delay_seconds must be 1 to 3600').max(3600, 'delay_seconds must be 1 to 3600').optional().describe('Seconds to wait (1-3600)'),
    repeat_count: z
      .number()
      .int()
      .refine((n) => n === -1 || (n >= 1 && n <= 100000), 'repeat_count must be -1 (until cancelled) or 1 to 100000')
      .optional()
      .describe('Times to fire before cancel (default 20; -1 until cancelled)'),
    callback_id: z.number().int().min(0, 'callback_id is a slot id from 0 to 7').max(7, 'callback_id is a slot id from 0 to 7').optional().describe('Callback slot ID (cancel: which one; set: the slot to use, which must be free)'),
    all: z.boolean().optional().describe('cancel: true cancels every active callback (instead of callback_id)'),
  }),
  outputSchema: z.object({ action: z.string(), callbacks: z.array(cbShape), cancelled: z.array(z.number().int()).optional() }),
  annotations: { title: 'Set a timer that reminds you', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler(args, ctx) {
    const repo = ctx.services.callbacks;
    const action = args.action ?? 'set';
    const callbacks = ctx.services.scheduler;
    if (action === 'set') {
      const message = args.message?.trim();
      if (!message) throw new UserError('SetCallback set: message is empty; say what the callback should remind you of.', 'INVALID_INPUT');
      if (args.delay_seconds === undefined) throw new UserError('SetCallback set: delay_seconds is missing (1-3600).', 'INVALID_INPUT');
      const max = ctx.services.settings.get('CALLBACK_MAX');
      if (args.callback_id !== undefined && args.callback_id >= max) throw new UserError(`SetCallback set: callback_id ${args.callback_id} is beyond CALLBACK_MAX (${max} slots, ids 0-${max - 1}).`, 'INVALID_INPUT');
      const c = callbacks.add({ session: ctx.callerId, message, delayS: args.delay_seconds, repeatTotal: args.repeat_count ?? 20, max, slot: args.callback_id });
      if (!c && args.callback_id !== undefined) {
        throw new UserError(`SetCallback set: slot ${args.callback_id} is in use. Leave callback_id out to take a free slot, or cancel ${args.callback_id} first ({"action":"cancel","callback_id":${args.callback_id}}).`, 'CONFLICT');
      }
      if (!c) throw new UserError(`SetCallback set: all ${max} callback slots are in use. Cancel one ({"action":"cancel","callback_id":N}) or wait for one to finish.`, 'LIMIT_REACHED');
      const times = c.repeat_total === -1 ? 'until cancelled' : c.repeat_total === 1 ? 'once' : `${c.repeat_total} times`;
      return textResult(`Callback ${c.slot} set: "${preview(message)}" fires in ${c.delay_s} s, every ${c.delay_s} s, ${times}.`, { action, callbacks: [data(c)] });
    }
    if (action === 'list') {
      const all = repo.active().map(data);
      if (all.length === 0) return textResult('No active callbacks.', { action, callbacks: [] });
      const lines = all.map((c) => `  ${c.callback_id}. "${preview(c.message)}" — next in ${formatDuration(c.next_fire_in_ms)}, every ${c.delay_seconds} s, ${c.fires_left === null ? 'until cancelled' : `${c.fires_left} left`}`);
      return textResult(`${all.length} active callback(s):\n${lines.join('\n')}`, { action, callbacks: all });
    }
    // cancel: one callback by id, or all of them only when asked for explicitly.
    if (args.callback_id !== undefined && args.all) throw new UserError('SetCallback cancel: pass either callback_id or all: true, not both.', 'INVALID_INPUT');
    if (args.callback_id !== undefined) {
      const c = callbacks.cancelSlot(args.callback_id);
      if (!c) throw new UserError(`SetCallback cancel: no active callback ${args.callback_id}. {"action":"list"} shows the active ones.`, 'NOT_FOUND');
      return textResult(`Cancelled callback ${c.slot} ("${preview(c.message)}").`, { action, callbacks: repo.active().map(data), cancelled: [c.slot] });
    }
    if (args.all !== true) {
      throw new UserError('SetCallback cancel: say which callback: {"action":"cancel","callback_id":N} for one ({"action":"list"} shows them), or {"action":"cancel","all":true} for every one.', 'INVALID_INPUT');
    }
    const active = callbacks.cancelAll();
    return textResult(active.length ? `Cancelled all ${active.length} callback(s).` : 'There were no active callbacks.', { action, callbacks: [], cancelled: active.map((c) => c.slot) });
  },
});
