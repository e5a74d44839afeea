import { z } from 'zod';
import { defineTool, textResult, type Services } from '../types.js';
import { UserError } from '../../core/errors.js';
import { skillKey } from '../../core/settings/schema.js';
import { renderSkill } from './skills.js';

function describeSkills(services: Services): string {
  const head =
    'Invoke a skill by name: returns its instructions (with $ARGUMENTS replaced by arguments), its folder and the files it bundles, ' +
    'which you can read or run. Use a skill whenever the task matches its description.';
  const skills = services.skills.enabled();
  if (skills.length === 0) return `${head}\n\nNo skills are installed (put folders with a SKILL.md in ~/.claude/skills or ${services.paths.skillsDir}).`;
  return `${head}\n\nAvailable skills:\n${skills.map((s) => `- ${s.name}: ${s.description}`).join('\n')}`;
}

export const invokeSkillTool = defineTool({
  name: 'InvokeSkill',
  title: 'Use a skill',
  group: 'workflow',
  description: describeSkills,
  inputSchema: z.object({
    skill_name: z.string().describe('The skill name to invoke'),
    arguments: z.string().optional().describe('Arguments to pass to the skill'),
  }),
  outputSchema: z.object({ name: z.string(), folder: z.string(), files: z.array(z.string()), content: z.string() }),
  annotations: { title: 'Use a skill', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler(args, ctx) {
    const catalog = ctx.services.skills;
    catalog.rescan();
    const skill = catalog.get(args.skill_name.trim());
    if (!skill) {
      const names = catalog.enabled().map((s) => s.name);
      throw new UserError(`InvokeSkill: there is no skill "${args.skill_name}". ${names.length ? `Available: ${names.join(', ')}.` : 'No skills are installed.'}`, 'NOT_FOUND');
    }
    if (!catalog.isEnabled(skill.name)) {
      throw new UserError(`InvokeSkill: the skill "${skill.name}" is turned off (${skillKey(skill.name)}=false). Ask the user to enable it in the Pincer dashboard or pincer-env.txt.`, 'DENIED');
    }
    const content = renderSkill(skill, args.arguments);
    const files = catalog.files(skill);
    const text = [`# Skill: ${skill.name}`, `Folder: ${skill.dir}`, files.length ? `Files:\n${files.map((f) => `- ${f}`).join('\n')}` : 'Files: none besides SKILL.md', '', content].join('\n');
    return textResult(text, { name: skill.name, folder: skill.dir, files, content });
  },
});
