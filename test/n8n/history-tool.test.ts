import path from 'node:path';
import { FROM_AI_AUTO_GENERATED_MARKER, type IConnections, type INode } from 'n8n-workflow';
import { acquireHistory, type HistoryLease } from '../../shared/history/leases';
import type { HistoryStore, VisitPatch } from '../../shared/history/types';
import { AGENT_NODE, scriptAgent, withAgent, type AgentTranscript, type ToolCall } from './support/agent';
import { CredentialStore } from './support/credentials-helper';
import { cleanUpEngine, Engine, loadPackage, SOURCE_NODE, type LoadedPackage } from './support/engine';

// Visual Recognition > History as an n8n AI Agent's tool, run by n8n's own engine with no language
// model: the agent (support/agent.ts) gets its tools from n8n-core as n8n's AI Agent does, is shown
// their names, descriptions and argument schemas (the `$fromAI` placeholders of the tool nodes), and
// calls them with the arguments a model would give for "was the courier here today?". The history is
// this test's n8n user folder's SQLite file, filled through the real store. History without Search By
// Face sends nothing to the service, so no sandbox is needed (the credential is only read).

const COURIER = 'p_22222222-2222-4222-8222-222222222222';
const GARDENER = 'p_33333333-3333-4333-8333-333333333333';
let pkg: LoadedPackage;
let lease: HistoryLease;
let store: HistoryStore;

beforeAll(async () => {
  pkg = withAgent(await loadPackage());
  lease = acquireHistory({ location: path.join(process.env.N8N_USER_FOLDER!, '.n8n', 'vision-streaming', 'history.sqlite'), makeFolder: true });
  store = await lease.store();
  const now = Date.now();
  const startOfToday = new Date(new Date().setHours(0, 0, 0, 0)).getTime();
  // Today's visit is within today even just after midnight; yesterday's ended before today began.
  const today = new Date(Math.max(now - 60_000, startOfToday)).toISOString();
  const yesterday = (hoursBefore: number) => new Date(startOfToday - hoursBefore * 3_600_000).toISOString();
  await store.writeVisit(visit('c-today', { person_id: COURIER, name: 'Courier', arrived_at: today }));
  await store.writeVisit(visit('c-yesterday', { person_id: COURIER, name: 'Courier', arrived_at: yesterday(5) }));
  await store.writeVisit(visit('g-yesterday', { person_id: GARDENER, name: 'Gardener', arrived_at: yesterday(3) }));
  await store.writeVisit(visit('x-today', { kind: 'stranger', arrived_at: today }));
}, 180_000);

afterAll(async () => {
  await lease?.release();
  cleanUpEngine();
});

/** A visit of two minutes at `arrived_at`. */
function visit(id: string, over: Partial<VisitPatch> & { arrived_at: string }): VisitPatch {
  const left = new Date(Date.parse(over.arrived_at) + 120_000).toISOString();
  return { visit_id: id, kind: 'person', room_id: 'room-1', stream_id: 'door', left_at: left, duration_s: 120, ...over };
}

/** A `$fromAI` placeholder as n8n's editor writes it when the model is to fill a parameter. */
const fromAI = (key: string, description: string, type = 'string') => `={{ ${FROM_AI_AUTO_GENERATED_MARKER} $fromAI('${key}', \`${description}\`, '${type}') }}`;

/** The History tool nodes as a user sets them up under an AI Agent, the model filling what it must choose. */
function toolNodes(): INode[] {
  const type = `${pkg.packageName}.visualRecognitionTool`;
  const credentials = { [pkg.credentialType]: { id: 'cred', name: 'Vision' } };
  const at = (n: number): [number, number] => [200 * n, 200];
  return [
    {
      id: 'search',
      name: 'Search visits',
      type,
      typeVersion: 2,
      position: at(1),
      credentials,
      parameters: {
        resource: 'history',
        operation: 'search',
        person: fromAI('person', 'Name of the person, e.g. Courier; empty for everyone'),
        since: fromAI('since', 'Start of the time range: today, 2d, 12h, or an ISO date such as 2026-11-28; empty for no start'),
        until: fromAI('until', 'End of the time range, same forms as since; empty for now'),
      },
    },
    {
      id: 'get',
      name: 'Get a visit',
      type,
      typeVersion: 2,
      position: at(2),
      credentials,
      parameters: { resource: 'history', operation: 'get', visitId: fromAI('visit_id', 'The visit_id of a visit a search gave') },
    },
  ];
}

/** Runs Source → Agent with the History tools connected, the agent making `calls`; gives what the agent saw. */
async function ask(calls: ToolCall[], via: 'engine' | 'invoke' = 'engine'): Promise<{ transcript: AgentTranscript; error?: Error }> {
  const key = `agent-${Math.random().toString(36).slice(2)}`;
  const transcript = scriptAgent(key, calls, via);
  const credentials = new CredentialStore();
  // Only read by the node: History without Search By Face sends nothing to the service.
  credentials.set('cred', { clientId: 'client', clientSecret: 'secret', authUrl: 'http://127.0.0.1:9', visionUrl: 'http://127.0.0.1:9', sfuUrl: 'http://127.0.0.1:9' });
  const engine = new Engine(pkg, credentials);
  const tools = toolNodes();
  const nodes: INode[] = [
    { id: 'source', name: 'Source', type: SOURCE_NODE, typeVersion: 1, position: [0, 0], parameters: { key } },
    { id: 'agent', name: 'Agent', type: AGENT_NODE, typeVersion: 1, position: [200, 0], parameters: { key } },
    ...tools,
  ];
  const connections: IConnections = { Source: { main: [[{ node: 'Agent', type: 'main', index: 0 }]] } };
  for (const tool of tools) connections[tool.name] = { ai_tool: [[{ node: 'Agent', type: 'ai_tool', index: 0 }]] };
  engine.setSourceItems(key, [{ json: { chatInput: 'Was the courier here today?' } }]);
  // n8n's agent asks the engine to run its tools, which it does before resuming the agent in the
  // execution order of every workflow made since n8n 1.0 (v1).
  const result = await engine.run(nodes, connections, { executionOrder: 'v1' });
  return { transcript, ...(result.error ? { error: result.error } : {}) };
}

/** The visits a tool's answer lists (the answer is the JSON text the model reads). */
function visitIds(observation: string): string[] {
  const [answer] = JSON.parse(observation) as { visits?: { visit_id: string }[] }[];
  return (answer.visits ?? []).map((v) => v.visit_id);
}

test('the agent is shown Search and Get with their fields described, answers "was the courier here today?" from the history, and reads a bad since as an error naming the field', async () => {
  const courierToday = { person: 'Courier', since: 'today', until: '' };
  const { transcript, error } = await ask([
    { tool: 'Search_visits', args: courierToday },
    { tool: 'Get_a_visit', args: { visit_id: 'c-today' } },
    { tool: 'Search_visits', args: { person: 'Courier', since: 'last tuesday', until: '' } },
  ]);
  expect(error).toBeUndefined();

  // What the model is shown: each tool by its node's name, what it does, and its arguments described.
  // n8n's automatic tool description is the operation's action: it must say what the tool reaches.
  const search = transcript.tools.find((t) => t.name === 'Search_visits')!;
  expect(search.description).toBe('Search the history of visits in Visual Recognition');
  expect(search.parameters.properties).toEqual({
    person: expect.objectContaining({ type: 'string', description: expect.stringContaining('Name of the person') }),
    since: expect.objectContaining({ type: 'string', description: expect.stringContaining('today') }),
    until: expect.objectContaining({ type: 'string', description: expect.stringContaining('End of the time range') }),
  });
  expect(search.parameters.required).toEqual(expect.arrayContaining(['person', 'since', 'until']));
  const get = transcript.tools.find((t) => t.name === 'Get_a_visit')!;
  expect(get.description).toBe('Get a visit from the history in Visual Recognition');
  expect(Object.keys(get.parameters.properties ?? {})).toEqual(['visit_id']);

  expect(transcript.results).toHaveLength(3);
  const [courier, got, bad] = transcript.results;
  // Today's visit of the courier, not their visit yesterday, not the gardener's, not the stranger's.
  expect(visitIds(courier.observation)).toEqual(['c-today']);
  expect(JSON.parse(courier.observation)[0]).toMatchObject({ count: 1, visits: [{ visit_id: 'c-today', name: 'Courier', person_id: COURIER }] });
  expect(JSON.parse(got.observation)[0]).toMatchObject({ visit_id: 'c-today', name: 'Courier', arrived_at: expect.any(String) });
  // The run goes on; the model reads what was wrong and how to say it.
  expect(JSON.parse(bad.observation)).toEqual([{ error: expect.stringMatching(/^since must be an ISO 8601 date.*today.*2d/) }]);
}, 60_000);

test("called in-process (the tool's invoke, as LangChain's executors call it), the tool answers the same and a bad since is an error naming the field", async () => {
  const { transcript, error } = await ask(
    [
      { tool: 'Search_visits', args: { person: 'courier', since: 'today', until: '' } },
      { tool: 'Search_visits', args: { person: 'Courier', since: 'yesterday', until: '' } },
    ],
    'invoke',
  );
  expect(error).toBeUndefined();
  expect(transcript.results).toHaveLength(2);
  const [courier, bad] = transcript.results;
  expect(visitIds(courier.observation)).toEqual(['c-today']);
  expect(bad.observation).toMatch(/^Error: since must be an ISO 8601 date/);
  expect(bad.observation).toContain('Check the parameter "Since"');
}, 60_000);
