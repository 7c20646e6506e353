import { removeUserFolder } from './env';
import { buildCloudPackage, buildPackage, CLOUD_PACKAGE_DIR, PACKAGE_DIR } from '../../support/package-build';
import { Container } from '@n8n/di';
import {
  BinaryDataService,
  ExecutionLifecycleHooks,
  InstanceSettings,
  LoadOptionsContext,
  PackageDirectoryLoader,
  TriggerContext,
  TriggersAndPollers,
  WorkflowExecute,
} from 'n8n-core';
import {
  Workflow,
  type ICredentialType,
  type IConnections,
  type IExecuteFunctions,
  type INode,
  type INodeExecutionData,
  type INodeListSearchResult,
  type INodeType,
  type INodeTypes,
  type IRun,
  type ITriggerFunctions,
  type ITriggerResponse,
  type IVersionedNodeType,
  type IWorkflowExecuteAdditionalData,
  type IWorkflowSettings,
} from 'n8n-workflow';
import { CredentialStore, TestCredentialsHelper } from './credentials-helper';

export { buildCloudPackage, buildPackage, CLOUD_PACKAGE_DIR, PACKAGE_DIR };

/** Name of the test node that emits the items given in its `items` parameter. */
export const SOURCE_NODE = 'test.source';

/** Items for the source node: JSON plus binaries given as bytes (stored through n8n's binary data service). */
export interface SourceItem {
  json?: Record<string, unknown>;
  binary?: Record<string, { data: Buffer; fileName?: string; mimeType?: string }>;
}

const sourceItems = new Map<string, SourceItem[]>();

/** A node that emits prepared items, with real binary data, to start a workflow. */
class SourceNode implements INodeType {
  description = {
    displayName: 'Source',
    name: SOURCE_NODE,
    group: ['input'],
    version: 1,
    description: 'Emits test items',
    defaults: { name: 'Source' },
    inputs: ['main'],
    outputs: ['main'],
    properties: [{ displayName: 'Key', name: 'key', type: 'string', default: '' }],
  } as unknown as INodeType['description'];

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    const items = sourceItems.get(this.getNodeParameter('key', 0) as string) ?? [];
    const out: INodeExecutionData[] = [];
    for (const [index, item] of items.entries()) {
      const binary: INodeExecutionData['binary'] = {};
      for (const [name, file] of Object.entries(item.binary ?? {})) {
        binary[name] = await this.helpers.prepareBinaryData(file.data, file.fileName ?? `${name}.bin`, file.mimeType);
      }
      out.push({ json: (item.json ?? {}) as INodeExecutionData['json'], ...(item.binary ? { binary } : {}), pairedItem: { item: index } });
    }
    return [out];
  }
}

/** Name of the test node that awaits a registered callback, then passes its input on. */
export const HOOK_NODE = 'test.hook';

const hooks = new Map<string, () => Promise<void> | void>();

/** Registers the callback a hook node with parameter `key` runs. */
export function setHook(key: string, fn: () => Promise<void> | void): void {
  hooks.set(key, fn);
}

/** Runs a callback between two nodes of a workflow (e.g. to expire the sandbox's tokens). */
class HookNode implements INodeType {
  description = {
    displayName: 'Hook',
    name: HOOK_NODE,
    group: ['transform'],
    version: 1,
    description: 'Runs a test callback',
    defaults: { name: 'Hook' },
    inputs: ['main'],
    outputs: ['main'],
    properties: [{ displayName: 'Key', name: 'key', type: 'string', default: '' }],
  } as unknown as INodeType['description'];

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    await hooks.get(this.getNodeParameter('key', 0) as string)?.();
    return [this.getInputData()];
  }
}

/** The package's nodes and credentials as n8n loads them, plus the test source node. */
export interface LoadedPackage {
  packageName: string;
  nodeTypes: INodeTypes;
  credentialTypes: Map<string, ICredentialType>;
  /** Node type names as the package registers them, e.g. 'n8n-nodes-vision-streaming.visualRecognition'. */
  nodeNames: string[];
  /** The package's credential type, e.g. 'visionStreamingApi'. */
  credentialType: string;
}

/** Which package a test runs: the main one, or the n8n Cloud one built by `npm run pack:cloud`. */
export type PackageKind = 'main' | 'cloud';

/** The package an action-node test file runs against: VS_N8N_PACKAGE=cloud (read once, at load) for the n8n Cloud build. */
export function packageUnderTest(): PackageKind {
  return process.env.VS_N8N_PACKAGE === 'cloud' ? 'cloud' : 'main';
}

/** Builds the package and loads it with n8n's own PackageDirectoryLoader (the package.json "n8n" section). */
export async function loadPackage(kind: PackageKind = 'main'): Promise<LoadedPackage> {
  if (kind === 'cloud') buildCloudPackage();
  else buildPackage();
  const loader = new PackageDirectoryLoader(kind === 'cloud' ? CLOUD_PACKAGE_DIR : PACKAGE_DIR);
  await loader.loadAll();
  const byName = new Map<string, INodeType | IVersionedNodeType>();
  for (const [name, data] of Object.entries(loader.nodeTypes)) byName.set(`${loader.packageName}.${name}`, data.type);
  byName.set(SOURCE_NODE, new SourceNode());
  byName.set(HOOK_NODE, new HookNode());
  const credentialTypes = new Map<string, ICredentialType>();
  for (const [name, data] of Object.entries(loader.credentialTypes)) credentialTypes.set(name, data.type);
  const nodeTypes: INodeTypes = {
    getByName: (name) => need(byName.get(name), name),
    getByNameAndVersion: (name, version) => {
      const type = need(byName.get(name), name);
      return 'nodeVersions' in type ? type.getNodeType(version) : type;
    },
    getKnownTypes: () => ({}),
  };
  return {
    packageName: loader.packageName,
    nodeTypes,
    credentialTypes,
    nodeNames: [...byName.keys()].filter((n) => n !== SOURCE_NODE && n !== HOOK_NODE),
    credentialType: [...credentialTypes.keys()][0],
  };
}

function need<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`unknown node type ${name}`);
  return value;
}

let servicesReady: Promise<void> | undefined;

/** n8n-core's services a node run needs: instance settings and binary data in the default (in-memory) mode. */
function initServices(): Promise<void> {
  servicesReady ??= (async () => {
    Container.get(InstanceSettings);
    const binary = Container.get(BinaryDataService);
    await binary.init();
  })();
  return servicesReady;
}

/** One workflow run's result, with helpers to read a node's output. */
export interface RunResult {
  run: IRun;
  /** Items of the first output of `node` (first run). */
  output(node: string): INodeExecutionData[];
  /** The error that stopped the workflow, if any. */
  error?: Error;
}

/** A node of a test workflow; id, position and version are filled in. */
export type NodeSpec = Pick<INode, 'name' | 'type' | 'parameters'> & Partial<Pick<INode, 'credentials' | 'onError' | 'typeVersion'>>;

/** Runs workflows in-process through n8n's WorkflowExecute. */
export class Engine {
  readonly credentialsHelper: TestCredentialsHelper;

  constructor(
    readonly pkg: LoadedPackage,
    readonly store: CredentialStore = new CredentialStore(),
  ) {
    this.credentialsHelper = new TestCredentialsHelper(pkg.credentialTypes, store);
  }

  /** Stores the items the source node with `key` emits. */
  setSourceItems(key: string, items: SourceItem[]): void {
    sourceItems.set(key, items);
  }

  /** Runs nodes connected in a chain after a source node emitting `items`. */
  async runChain(items: SourceItem[], nodes: NodeSpec[]): Promise<RunResult> {
    const key = `items-${Math.random().toString(36).slice(2)}`;
    this.setSourceItems(key, items);
    const all: INode[] = [
      { id: 'source', name: 'Source', type: SOURCE_NODE, typeVersion: 1, position: [0, 0], parameters: { key } },
      ...nodes.map((n, i) => ({ typeVersion: 1, position: [(i + 1) * 200, 0] as [number, number], id: `n${i}`, ...n }) as INode),
    ];
    const connections: IConnections = {};
    for (let i = 0; i < all.length - 1; i++) {
      connections[all[i].name] = { main: [[{ node: all[i + 1].name, type: 'main', index: 0 }]] };
    }
    try {
      return await this.run(all, connections);
    } finally {
      sourceItems.delete(key);
    }
  }

  /** What n8n hands a node run: hooks, the credentials helper, URLs. */
  #additionalData(executionId: string, nodes: INode[], connections: IConnections): IWorkflowExecuteAdditionalData {
    const hooks = new ExecutionLifecycleHooks('manual', executionId, { id: 'wf', name: 'test', nodes, connections, active: false, settings: {} } as never);
    return {
      credentialsHelper: this.credentialsHelper,
      hooks,
      executionId,
      currentNodeExecutionIndex: 0,
      restApiUrl: 'http://127.0.0.1:0/rest',
      instanceBaseUrl: 'http://127.0.0.1:0/',
      formBaseUrl: 'http://127.0.0.1:5678/formBaseUrl',
      formWaitingBaseUrl: 'http://127.0.0.1:5678/formWaitingBaseUrl',
      formTestBaseUrl: 'http://127.0.0.1:5678/formTestBaseUrl',
      webhookBaseUrl: 'http://127.0.0.1:5678/webhookBaseUrl',
      webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhookWaitingBaseUrl',
      webhookTestBaseUrl: 'http://127.0.0.1:5678/webhookTestBaseUrl',
      mcpBaseUrl: 'http://127.0.0.1:5678/mcpBaseUrl',
      mcpTestBaseUrl: 'http://127.0.0.1:5678/mcpTestBaseUrl',
      variables: {},
      getRunExecutionData: async () => undefined,
      executeWorkflow: async () => {
        throw new Error('not supported in tests');
      },
      getRuntimeCredential: async () => undefined,
      logAiEvent: () => {},
      startRunnerTask: async () => {
        throw new Error('not supported in tests');
      },
    } as unknown as IWorkflowExecuteAdditionalData;
  }

  /**
   * Activates a trigger node the way n8n activates a workflow (mode 'trigger'): n8n-core's
   * TriggersAndPollers with a TriggerContext whose emit, emitError and saveFailedExecution are the
   * given listeners. Rejects when activation fails.
   */
  async activate(node: INode, listeners: Pick<ITriggerFunctions, 'emit' | 'emitError' | 'saveFailedExecution'>): Promise<ITriggerResponse | undefined> {
    await initServices();
    const workflow = new Workflow({ id: 'wf', name: 'test', nodes: [node], connections: {}, active: true, nodeTypes: this.pkg.nodeTypes, settings: {} });
    const additionalData = this.#additionalData(`a${Math.random().toString(36).slice(2)}`, [node], {});
    return await new TriggersAndPollers().runTriggerFunction(
      workflow,
      node,
      (wf, n, data, mode, activation) => new TriggerContext(wf, n, data, mode, activation, listeners.emit, listeners.emitError, listeners.saveFailedExecution),
      additionalData,
      'trigger',
      'activate',
    );
  }

  /**
   * Runs a node's `methods.listSearch[method]` the way n8n's editor endpoint for resource locators
   * does: n8n-core's LoadOptionsContext over a workflow holding only that node.
   */
  async listSearch(node: INode, method: string, filter?: string): Promise<INodeListSearchResult> {
    await initServices();
    const workflow = new Workflow({ id: 'wf', name: 'test', nodes: [node], connections: {}, active: false, nodeTypes: this.pkg.nodeTypes, settings: {} });
    const additionalData = this.#additionalData(`l${Math.random().toString(36).slice(2)}`, [node], {});
    const type = this.pkg.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
    const search = type.methods?.listSearch?.[method];
    if (!search) throw new Error(`${node.type} has no listSearch method ${method}`);
    const context = new LoadOptionsContext(workflow, node, additionalData, 'parameters');
    return await search.call(context, filter);
  }

  /**
   * Runs a workflow from its first node, manual mode; `settings` are the workflow's (e.g.
   * `executionOrder: 'v1'`, which every workflow made in n8n 1.0 or later has).
   */
  async run(nodes: INode[], connections: IConnections, settings: IWorkflowSettings = {}): Promise<RunResult> {
    await initServices();
    const workflow = new Workflow({ id: 'wf', name: 'test', nodes, connections, active: false, nodeTypes: this.pkg.nodeTypes, settings });
    const executionId = `e${Math.random().toString(36).slice(2)}`;
    let finished!: (run: IRun) => void;
    const done = new Promise<IRun>((resolve) => (finished = resolve));
    const additionalData = this.#additionalData(executionId, nodes, connections);
    additionalData.hooks!.addHandler('workflowExecuteAfter', (run) => finished(run));
    const execute = new WorkflowExecute(additionalData, 'manual');
    const startNode = workflow.getNode(nodes[0].name) ?? undefined;
    await execute.run({ workflow, startNode });
    const run = await done;
    const runData = run.data.resultData.runData;
    return {
      run,
      error: run.data.resultData.error as Error | undefined,
      output: (node) => runData[node]?.[0]?.data?.main?.[0] ?? [],
    };
  }
}

/** Removes the temporary n8n user folder; call once per test file in afterAll. */
export function cleanUpEngine(): void {
  removeUserFolder();
}

/** The bytes of a binary property as n8n stored it. */
export async function readBinary(binary: { id?: string; data: string; mimeType: string }): Promise<Buffer> {
  return await Container.get(BinaryDataService).getAsBuffer(binary as never);
}
