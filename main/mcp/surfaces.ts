import { ProtocolError, ProtocolErrorCode, type McpServer } from '@modelcontextprotocol/server';
import type { Services } from '../tools/types.js';
import { tasksMarkdown } from '../tools/workflow/task-manager.js';
import { planMarkdown } from '../tools/workflow/plan-mode.js';
import { renderSkill } from '../tools/workflow/skills.js';

export const TASKS_URI = 'pincer://tasks';
export const PLAN_URI = 'pincer://plan';

/** Tasks and the current plan as MCP resources (markdown), with subscriptions. */
export function registerResources(mcp: McpServer, services: Services, subscriptions: Set<string>): void {
  const server = mcp.server;
  const resources = [
    { uri: TASKS_URI, name: 'tasks', title: 'Tasks', description: 'Every TaskManager task with its steps, as a markdown checklist.', mimeType: 'text/markdown' },
    { uri: PLAN_URI, name: 'plan', title: 'Current plan', description: 'The plan from PlanMode: goal, status and the plan text.', mimeType: 'text/markdown' },
  ];
  server.setRequestHandler('resources/list', () => ({ resources }));
  server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: [] }));
  server.setRequestHandler('resources/read', (req) => {
    const uri = req.params.uri;
    if (uri === TASKS_URI) return { contents: [{ uri, mimeType: 'text/markdown', text: tasksMarkdown(services.tasks) }] };
    if (uri === PLAN_URI) return { contents: [{ uri, mimeType: 'text/markdown', text: planMarkdown(services.plans.current()) }] };
    throw new ProtocolError(-32002 as ProtocolErrorCode, `Resource not found: ${uri}. resources/list shows ${TASKS_URI} and ${PLAN_URI}.`);
  });
  server.setRequestHandler('resources/subscribe', (req) => {
    if (req.params.uri !== TASKS_URI && req.params.uri !== PLAN_URI) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Cannot subscribe to ${req.params.uri}: unknown resource.`);
    subscriptions.add(req.params.uri);
    return {};
  });
  server.setRequestHandler('resources/unsubscribe', (req) => {
    subscriptions.delete(req.params.uri);
    return {};
  });
}

/** Every enabled skill is also a prompt, taking one optional `arguments` argument. */
export function registerPrompts(mcp: McpServer, services: Services): void {
  const server = mcp.server;
  server.setRequestHandler('prompts/list', () => ({
    prompts: services.skills.enabled().map((s) => ({
      name: s.name,
      title: s.name,
      description: s.description,
      arguments: [{ name: 'arguments', description: 'Arguments for the skill ($ARGUMENTS)', required: false }],
    })),
  }));
  server.setRequestHandler('prompts/get', (req) => {
    services.skills.rescan();
    const skill = services.skills.get(req.params.name);
    if (!skill || !services.skills.isEnabled(skill.name)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt not found: ${req.params.name}. prompts/list shows the available skills.`);
    }
    return {
      description: skill.description,
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: renderSkill(skill, req.params.arguments?.arguments) } }],
    };
  });
}
