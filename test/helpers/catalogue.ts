import assert from 'node:assert/strict';

/** The catalogue Pincer keeps compatible with: names, parameters and required fields. */
export const EXPECTED: Record<string, { params: string[]; required: string[] }> = {
  Bash: { params: ['command', 'timeout'], required: ['command'] },
  BackgroundBash: { params: ['command'], required: ['command'] },
  ReadBgOutput: { params: ['task_id', 'wait_ms', 'max_bytes'], required: ['task_id'] },
  ListBgTasks: { params: ['status', 'query', 'offset', 'limit'], required: [] },
  KillBgTask: { params: ['task_id'], required: ['task_id'] },
  ReadImage: { params: ['file_path'], required: ['file_path'] },
  ReadDocs: { params: ['url', 'format', 'wait_ms', 'offset', 'links'], required: ['url'] },
  WebSearch: { params: ['query', 'max_results'], required: ['query'] },
  TaskManager: { params: ['action', 'query', 'task_id', 'step_id', 'text', 'status', 'offset', 'limit'], required: ['action'] },
  PlanMode: { params: ['action', 'goal', 'plan_file'], required: ['action'] },
  InvokeSkill: { params: ['skill_name', 'arguments'], required: ['skill_name'] },
  SetCallback: { params: ['action', 'message', 'delay_seconds', 'repeat_count', 'callback_id', 'all'], required: [] },
  AskUserQuestion: { params: ['questions_json', 'question_id'], required: [] },
};

export const TOOL_COUNT = Object.keys(EXPECTED).length;

type Listed = { name: string; title?: string; description?: string; inputSchema: { properties?: Record<string, unknown>; required?: string[] }; annotations?: Record<string, unknown>; outputSchema?: unknown };

export function checkCatalogue(tools: unknown[]): void {
  const listed = tools as Listed[];
  assert.deepEqual(listed.map((t) => t.name).sort(), Object.keys(EXPECTED).sort());
  for (const t of listed) {
    const want = EXPECTED[t.name]!;
    assert.deepEqual(Object.keys(t.inputSchema.properties ?? {}).sort(), [...want.params].sort(), `${t.name} parameters`);
    assert.deepEqual([...(t.inputSchema.required ?? [])].sort(), [...want.required].sort(), `${t.name} required`);
    assert.ok(t.title && t.description && t.description.length > 40, `${t.name} has a title and a useful description`);
    assert.equal(typeof t.annotations?.readOnlyHint, 'boolean', `${t.name} annotations`);
    // ReadImage and ReadBgOutput have none: clients that prefer structuredContent would drop the image, and
    // the output would travel twice (or, to those clients, only without its text).
    if (t.name === 'ReadImage' || t.name === 'ReadBgOutput') assert.equal(t.outputSchema, undefined, `${t.name} has no outputSchema`);
    else {
      const out = t.outputSchema as { properties?: Record<string, { type?: string }>; required?: string[] } | undefined;
      assert.ok(out, `${t.name} has an outputSchema`);
      // Fired callbacks ride in structured results: clients validate structuredContent against this.
      assert.equal(out.properties?.pincer_notices?.type, 'array', `${t.name} declares pincer_notices`);
      assert.ok(!(out.required ?? []).includes('pincer_notices'), `${t.name}: pincer_notices is optional`);
    }
  }
}
