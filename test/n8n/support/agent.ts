import { toJsonSchema } from '@langchain/core/utils/json_schema';
import {
  NodeConnectionTypes,
  type EngineRequest,
  type EngineResponse,
  type IExecuteFunctions,
  type INodeProperties,
  type INodeType,
  type INodeTypeDescription,
  type INodeTypes,
  type NodeOutput,
} from 'n8n-workflow';
import type { LoadedPackage } from './engine';

// An n8n AI Agent without a language model, and n8n's tool variants of `usableAsTool` nodes.
//
// n8n's AI Agent (in @n8n/n8n-nodes-langchain, not a dependency here) gets its tools from n8n-core with
// `getInputConnectionData(ai_tool)`: for a node with no `supplyData` whose outputs are `ai_tool`,
// n8n-core's createNodeAsTool makes a LangChain tool whose name is the node's name, whose description is
// the node's tool description, and whose schema is the node's `$fromAI(...)` placeholders. The agent
// shows those to the model; when the model calls a tool, the agent returns an engine request naming the
// tool's node with the model's arguments, n8n-core's WorkflowExecute runs that node (its `$fromAI`
// resolved from the arguments; a failure becomes `{ error }`, the run goes on) and runs the agent again
// with the results. The scripted agent below does exactly that, with the calls a model would make given
// in advance. With `via: 'invoke'` it calls the tools in-process instead (`tool.invoke(args)`, n8n-core's
// makeHandleToolInvocation), as LangChain's executors do.
//
// The `<name>Tool` node type an AI Agent's tool node has is made by n8n's CLI package (NodeTypes
// `getByNameAndVersion` with `convertNodeToAiTool`, packages/cli), which is not installed for tests:
// `withAgent` does the same, so the node runs as it would in n8n.

/** Name of the scripted agent node type. */
export const AGENT_NODE = 'test.agent';

/** A tool call as a model makes it: the tool's name as the agent showed it, and the arguments. */
export interface ToolCall {
  tool: string;
  args: Record<string, unknown>;
}

/** A tool as the model is shown it. */
export interface SeenTool {
  name: string;
  description: string;
  /** The JSON Schema of the arguments (what a chat model's tool definition carries). */
  parameters: { type?: string; properties?: Record<string, { type?: string; description?: string }>; required?: string[] };
}

/** What the agent saw: the tools it was given, and what each call gave back as the model reads it. */
export interface AgentTranscript {
  tools: SeenTool[];
  results: { call: ToolCall; observation: string }[];
}

interface Script {
  calls: ToolCall[];
  via: 'engine' | 'invoke';
  transcript: AgentTranscript;
}

const scripts = new Map<string, Script>();

/** The scripted calls the agent node with `key` makes; its transcript fills in as the workflow runs. */
export function scriptAgent(key: string, calls: ToolCall[], via: Script['via'] = 'engine'): AgentTranscript {
  const transcript: AgentTranscript = { tools: [], results: [] };
  scripts.set(key, { calls, via, transcript });
  return transcript;
}

/** A LangChain tool as n8n-core hands it to an agent (only what an agent uses of it). */
interface AgentTool {
  name: string;
  description: string;
  schema: Parameters<typeof toJsonSchema>[0];
  metadata?: { sourceNodeName?: string };
  invoke(args: Record<string, unknown>): Promise<unknown>;
}

/** What the model reads back from a tool's run, as n8n's agent builds it from the engine's result. */
function observation(data: EngineResponse['actionResponses'][number]['data']): string {
  const items = data.data?.ai_tool?.[0]?.map((item) => item?.json);
  if (items && items.length > 0) return JSON.stringify(items);
  if (data.error) return JSON.stringify({ error: data.error.message ?? 'Unknown error', ...(data.error.name ? { errorType: data.error.name } : {}) });
  return JSON.stringify('');
}

/** An agent whose model's tool calls are given in advance: it asks for its tools as n8n's AI Agent does and calls them. */
class ScriptedAgent implements INodeType {
  description = {
    displayName: 'Scripted Agent',
    name: AGENT_NODE,
    group: ['transform'],
    version: 1,
    description: 'Calls its tools as a model would',
    defaults: { name: 'Agent' },
    inputs: [NodeConnectionTypes.Main, { type: NodeConnectionTypes.AiTool, displayName: 'Tools', required: true }],
    outputs: [NodeConnectionTypes.Main],
    properties: [{ displayName: 'Key', name: 'key', type: 'string', default: '' }],
  } as unknown as INodeTypeDescription;

  async execute(this: IExecuteFunctions, response?: EngineResponse): Promise<NodeOutput> {
    const script = scripts.get(this.getNodeParameter('key', 0) as string);
    if (!script) throw new Error('no script for this agent');
    const tools = (await this.getInputConnectionData(NodeConnectionTypes.AiTool, 0)) as AgentTool[];
    const find = (call: ToolCall) => {
      const tool = tools.find((t) => t.name === call.tool);
      if (!tool) throw new Error(`the agent has no tool ${call.tool}; it has ${tools.map((t) => t.name).join(', ')}`);
      return tool;
    };
    const { transcript } = script;
    if (script.via === 'invoke') {
      transcript.tools = tools.map(seen);
      for (const call of script.calls) {
        const text = await find(call).invoke(call.args).then(String, (err: unknown) => `Error: ${err instanceof Error ? err.message : String(err)}`);
        transcript.results.push({ call, observation: text });
      }
      return [[{ json: { answered: transcript.results.length } }]];
    }
    if (!response || response.actionResponses.length === 0) {
      transcript.tools = tools.map(seen);
      const request: EngineRequest<{ itemIndex: number }> = {
        actions: script.calls.map((call, n) => ({
          actionType: 'ExecutionNodeAction',
          nodeName: find(call).metadata?.sourceNodeName ?? call.tool,
          input: call.args as never,
          type: NodeConnectionTypes.AiTool,
          id: `call_${n}`,
          metadata: { itemIndex: 0 },
        })),
        metadata: { itemIndex: 0 },
      };
      return request;
    }
    for (const result of response.actionResponses) {
      const n = Number(result.action.id.replace('call_', ''));
      transcript.results.push({ call: script.calls[n], observation: observation(result.data) });
    }
    return [[{ json: { answered: transcript.results.length } }]];
  }
}

function seen(tool: AgentTool): SeenTool {
  return { name: tool.name, description: tool.description, parameters: toJsonSchema(tool.schema) as SeenTool['parameters'] };
}

/** n8n's tool variant of a node's description (the CLI's convertNodeToAiTool): named `…Tool`, an `ai_tool` output, a tool description. */
function convertNodeToAiTool<T extends { description: INodeTypeDescription }>(item: T): T {
  const d = item.description;
  d.name += 'Tool';
  d.inputs = [];
  d.outputs = [NodeConnectionTypes.AiTool];
  d.displayName += ' Tool';
  delete d.usableAsTool;
  const names = d.properties.map((p) => p.name);
  if (!names.includes('toolDescription')) {
    const toolDescription: INodeProperties = {
      displayName: 'Description',
      name: 'toolDescription',
      type: 'string',
      default: d.description,
      required: true,
      typeOptions: { rows: 2 },
      description: 'Explain to the LLM what this tool does',
    };
    const descriptionType: INodeProperties = {
      displayName: 'Tool Description',
      name: 'descriptionType',
      type: 'options',
      noDataExpression: true,
      options: [
        { name: 'Set Automatically', value: 'auto', description: 'Automatically set based on resource and operation' },
        { name: 'Set Manually', value: 'manual', description: 'Manually set the description' },
      ],
      default: 'auto',
    };
    const at = d.properties.findLastIndex((p) => p.type === 'callout') + 1;
    d.properties.splice(at, 0, toolDescription);
    if (names.includes('resource') || names.includes('operation')) {
      d.properties.splice(at, 0, descriptionType);
      toolDescription.displayOptions = { show: { descriptionType: ['manual'] } };
    }
  }
  return item;
}

/**
 * The package with the scripted agent, and with n8n's `<name>Tool` node types for its `usableAsTool`
 * nodes (as n8n's NodeTypes makes them: the node itself, its description extended into the tool's).
 */
export function withAgent(pkg: LoadedPackage): LoadedPackage {
  const agent = new ScriptedAgent();
  const base = pkg.nodeTypes;
  const tools = new Map<string, INodeType>();
  const nodeTypes: INodeTypes = {
    getByName: (name) => (name === AGENT_NODE ? agent : base.getByName(name)),
    getByNameAndVersion: (name, version) => {
      if (name === AGENT_NODE) return agent;
      if (!name.endsWith('Tool')) return base.getByNameAndVersion(name, version);
      const key = `${name}@${version}`;
      const known = tools.get(key);
      if (known) return known;
      const type = base.getByNameAndVersion(name.replace(/Tool$/, ''), version);
      if (typeof type.supplyData === 'function') throw new Error(`${name}: the node already has a supplyData method`);
      if (!type.description.usableAsTool) throw new Error(`${name}: the node cannot be used as a tool`);
      // Extended, not modified: the plain node keeps its description.
      const properties = Object.create(type.description.properties) as INodeTypeDescription['properties'];
      const description = Object.create(type.description, { properties: { value: properties } }) as INodeTypeDescription;
      const tool = convertNodeToAiTool(Object.create(type, { description: { value: description } }) as INodeType);
      tools.set(key, tool);
      return tool;
    },
    getKnownTypes: () => base.getKnownTypes(),
  };
  return { ...pkg, nodeTypes };
}
