import type { Services } from '../tools/types.js';
import { todosMarkdown } from '../tools/workflow/todo-views.js';
import { planMarkdown } from '../tools/workflow/plan-mode.js';
import { renderSkill } from '../tools/workflow/skills.js';
import { TODOS_URI, PLAN_URI } from './notifier.js';

/**
 * Resources and prompts as the hub serves them on every surface: tasks and
 * the plan as markdown resources, every enabled skill as a prompt.
 */
export const RESOURCES = [
  { uri: TODOS_URI, name: 'tasks', title: 'Tasks', description: 'Open TaskManager todos and the newest finished ones with their steps, as a markdown checklist (TaskManager list pages through the rest).', mimeType: 'text/markdown' },
  { uri: PLAN_URI, name: 'plan', title: 'Current plan', description: 'The plan from PlanMode: goal, status and the plan text.', mimeType: 'text/markdown' },
];

export function isResource(uri: string): boolean {
  return uri === TODOS_URI || uri === PLAN_URI;
}

/** The resource's contents, or undefined for an unknown URI. */
export function readResource(services: Services, uri: string): { contents: { uri: string; mimeType: string; text: string }[] } | undefined {
  if (uri === TODOS_URI) return { contents: [{ uri, mimeType: 'text/markdown', text: todosMarkdown(services.todos) }] };
  if (uri === PLAN_URI) return { contents: [{ uri, mimeType: 'text/markdown', text: planMarkdown(services.plans.current()) }] };
  return undefined;
}

export const RESOURCE_NOT_FOUND = (uri: string) => `Resource not found: ${uri}. resources/list shows ${TODOS_URI} and ${PLAN_URI}.`;
export const PROMPT_NOT_FOUND = (name: string) => `Prompt not found: ${name}. prompts/list shows the available skills.`;

export function listPrompts(services: Services) {
  return services.skills.enabled().map((s) => ({
    name: s.name,
    title: s.name,
    description: s.description,
    arguments: [{ name: 'arguments', description: 'Arguments for the skill ($ARGUMENTS)', required: false }],
  }));
}

/** The rendered skill, or undefined when no enabled skill has that name. */
export function getPrompt(services: Services, name: string, args?: string) {
  services.skills.rescan();
  const skill = services.skills.get(name);
  if (!skill || !services.skills.isEnabled(skill.name)) return undefined;
  return {
    description: skill.description,
    messages: [{ role: 'user' as const, content: { type: 'text' as const, text: renderSkill(skill, args) } }],
  };
}
