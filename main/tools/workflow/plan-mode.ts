import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { defineTool, textResult } from '../types.js';
import { UserError } from '../../core/errors.js';
import { formatDuration } from '../../core/format.js';
import { resolveCwd } from '../shell/process.js';
import type { PlanRow } from '../../store/plans.js';
import { VIEWS } from '../views/links.js';

const MAX_PLAN_BYTES = 512 * 1024;

export function planJson(p: PlanRow | undefined): { active: boolean; goal: string | null; plan_file: string | null; started_at: string | null; status: string | null; comment: string | null } {
  return {
    active: p?.status === 'active',
    goal: p?.goal ?? null,
    plan_file: p?.plan_file ?? null,
    started_at: p ? new Date(p.started_at).toISOString() : null,
    status: p?.status ?? null,
    comment: p?.comment ?? null,
  };
}

export function planMarkdown(p: PlanRow | undefined): string {
  if (!p || p.status === 'reset') return '# Plan\n\nNo plan. Enter plan mode with PlanMode {"action":"enter","goal":"…"}.\n';
  return `# Plan: ${p.goal}\n\nStatus: ${p.status}${p.comment ? ` — ${p.comment}` : ''}\n\n${p.plan_text ?? '_The plan has not been written yet._'}\n`;
}

export const planModeTool = defineTool({
  name: 'PlanMode',
  title: 'Plan before acting',
  group: 'workflow',
  description:
    'Manage plan mode for complex work: enter (with goal) before changing anything, write the plan to a markdown file, then exit ' +
    '(with plan_file) to submit it — when the user asked for approval, they approve or reject it with a comment. status shows the ' +
    'mode and duration, json returns {active, goal, plan_file, started_at}, reset abandons the plan.',
  inputSchema: z.object({
    action: z.string().describe('Action: enter, exit, status, json, reset'),
    goal: z.string().optional().describe('Goal/description'),
    plan_file: z.string().optional().describe('Path to markdown plan file'),
  }),
  outputSchema: z.object({ active: z.boolean(), goal: z.string().nullable(), plan_file: z.string().nullable(), started_at: z.string().nullable(), status: z.string().nullable(), comment: z.string().nullable() }),
  annotations: { title: 'Plan before acting', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  view: { uri: VIEWS.task },
  async handler(args, ctx) {
    const repo = ctx.services.plans;
    const action = args.action.trim().toLowerCase();
    const changed = () => ctx.services.events.publish({ type: 'plan_changed', at: Date.now() });
    const current = repo.current();
    switch (action) {
      case 'enter': {
        const goal = args.goal?.trim();
        if (!goal) throw new UserError('PlanMode enter: goal is empty; say what the plan is for: {"action":"enter","goal":"…"}.', 'INVALID_INPUT');
        const p = repo.enter(goal);
        changed();
        return textResult(`Plan mode is on. Goal: ${goal}\nInvestigate, write the plan to a markdown file, then call PlanMode {"action":"exit","plan_file":"/path/plan.md"}.`, planJson(p));
      }
      case 'exit': {
        if (!current || current.status !== 'active') throw new UserError('PlanMode exit: plan mode is not on. Enter it first with {"action":"enter","goal":"…"}.', 'CONFLICT');
        if (!args.plan_file?.trim()) throw new UserError('PlanMode exit: plan_file is missing; write the plan to a markdown file and pass its path.', 'INVALID_INPUT');
        const file = path.isAbsolute(args.plan_file) ? args.plan_file : path.resolve(resolveCwd(ctx.services.settings), args.plan_file);
        let st: fs.Stats;
        try {
          st = fs.statSync(file);
        } catch {
          throw new UserError(`PlanMode exit: ${file} does not exist. Write the plan there first.`, 'NOT_FOUND');
        }
        if (!st.isFile()) throw new UserError(`PlanMode exit: ${file} is not a file.`, 'INVALID_INPUT');
        if (st.size > MAX_PLAN_BYTES) throw new UserError(`PlanMode exit: ${file} is ${st.size} bytes; a plan should be under ${MAX_PLAN_BYTES / 1024} KB.`, 'TOO_LARGE');
        const text = fs.readFileSync(file, 'utf8');
        if (text.trim() === '') throw new UserError(`PlanMode exit: ${file} is empty. Write the plan first.`, 'INVALID_INPUT');
        if (!ctx.services.settings.get('PLAN_APPROVAL')) {
          repo.exit(current.id, file, text, 'submitted');
          changed();
          return textResult(`Plan stored (${text.split('\n').length} lines from ${file}); plan mode is off. Go ahead.`, planJson(repo.current()));
        }
        const outcome = await ctx.askUser({
          questions: [{ question: `Approve the plan for "${current.goal}"?\n\n${text.slice(0, 4000)}`, header: 'Plan', options: [{ label: 'Approve' }, { label: 'Reject' }], multiSelect: false }],
          purpose: 'plan',
        });
        if (outcome.status !== 'answered') {
          repo.exit(current.id, file, text, 'rejected', outcome.status === 'timeout' ? 'nobody answered' : 'declined');
          changed();
          return textResult(`The plan was not approved (${outcome.status === 'timeout' ? 'nobody answered' : outcome.status}). Stay in planning or ask the user.`, planJson(repo.current()));
        }
        const a = outcome.answers[0]!;
        const approved = a.selected === 'Approve';
        const comment = a.other;
        repo.exit(current.id, file, text, approved ? 'approved' : 'rejected', comment);
        changed();
        const msg = approved ? `The user approved the plan${comment ? ` with a comment: ${comment}` : ''}. Go ahead.` : `The user rejected the plan${comment ? `: ${comment}` : ''}. Revise it and exit again.`;
        return textResult(msg, planJson(repo.current()));
      }
      case 'status': {
        if (!current || current.status === 'reset') return textResult('Plan mode is off; there is no plan.', planJson(undefined));
        const dur = formatDuration((current.exited_at ?? Date.now()) - current.started_at);
        const text = current.status === 'active' ? `Plan mode is on for ${dur}. Goal: ${current.goal}` : `Plan mode is off. Last plan (${current.status}${current.comment ? `: ${current.comment}` : ''}) for "${current.goal}", from ${current.plan_file}, took ${dur}.`;
        return textResult(text, planJson(current));
      }
      case 'json': {
        const data = planJson(current?.status === 'reset' ? undefined : current);
        return textResult(JSON.stringify({ active: data.active, goal: data.goal, plan_file: data.plan_file, started_at: data.started_at }), data);
      }
      case 'reset': {
        const had = repo.reset();
        changed();
        return textResult(had ? 'Plan mode reset; the plan is dropped.' : 'There was no plan to reset.', planJson(undefined));
      }
      default:
        throw new UserError(`PlanMode: unknown action "${args.action}". Use one of: enter, exit, status, json, reset.`, 'INVALID_INPUT');
    }
  },
});
