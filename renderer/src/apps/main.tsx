import { render } from 'preact';
import { connect } from './bridge.js';
import { JobView } from './job-view.js';
import { QuestionView } from './question-view.js';
import { TodoView } from './todo-view.js';
import './view.css';

/**
 * A chat view of Pincer (MCP Apps): one page for the three views; the hub names which in the page it serves
 * (`<meta name="pincer-view">`, main/mcp/view-resources.ts).
 */
const VIEWS = { job: JobView, question: QuestionView, task: TodoView };
const name = document.querySelector('meta[name="pincer-view"]')?.getAttribute('content') ?? '';
const View = name in VIEWS ? VIEWS[name as keyof typeof VIEWS] : undefined;
const root = document.getElementById('root')!;

if (View) render(<View />, root);
else root.textContent = `Pincer sent a view this page does not know (${name}).`;
// The view renders at once and fills in as the host passes the call's input and result.
connect().catch((err: unknown) => console.error('Pincer view: could not connect to the chat app', err));
