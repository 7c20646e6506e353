import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NodeHelpers, type INode, type INodeParameters } from 'n8n-workflow';
import { startSandbox, type RunningSandbox } from '../../sandbox';
import { astronautFaceOfSize } from '../support/images';
import { CredentialStore } from './support/credentials-helper';
import { cleanUpEngine, Engine, loadPackage, PACKAGE_DIR, type LoadedPackage, type NodeSpec } from './support/engine';

// The example workflows: importable (known parameters, the sandbox credential), and their Visual
// Recognition steps run by n8n's engine with the webhook's output given by a test source node.

const DIR = join(PACKAGE_DIR, 'examples', 'n8n');
interface WorkflowFile {
  name: string;
  nodes: INode[];
  connections: Record<string, { main: { node: string }[][] }>;
}
const workflows = Object.fromEntries(
  readdirSync(DIR)
    .filter((f) => f.endsWith('.json') && !f.startsWith('credentials'))
    .map((f) => [f, JSON.parse(readFileSync(join(DIR, f), 'utf8')) as WorkflowFile]),
);
const credentialFile = JSON.parse(readFileSync(join(DIR, 'credentials.sandbox.json'), 'utf8')) as { id: string; type: string; data: Record<string, string> }[];

let pkg: LoadedPackage;
let sandbox: RunningSandbox;

beforeAll(async () => {
  pkg = await loadPackage();
  sandbox = await startSandbox({ port: 0 });
}, 180_000);

afterAll(async () => {
  await sandbox?.stop();
  cleanUpEngine();
});

test('there are the five use cases', () => {
  expect(Object.keys(workflows).sort()).toEqual(['alert-on-known-face.json', 'alert-on-stranger.json', 'compare-uploaded-photo.json', 'enrol-faces.json', 'who-came-while-away.json']);
});

test.each(Object.keys(workflows))('%s: every node of this package has known parameters and the sandbox credential', (file) => {
  const wf = workflows[file];
  const ours = wf.nodes.filter((n) => n.type.startsWith(`${pkg.packageName}.`));
  expect(ours.length).toBeGreaterThan(0);
  for (const node of ours) {
    const type = pkg.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
    const names = new Set(type.description.properties.map((p) => p.name));
    for (const key of Object.keys(node.parameters)) expect(`${node.name}: ${key} ${names.has(key)}`).toBe(`${node.name}: ${key} true`);
    // n8n resolves the parameters against the description without complaint, and the shown ones are all set.
    const resolved = NodeHelpers.getNodeParameters(type.description.properties, node.parameters, false, false, node, type.description);
    expect(resolved).not.toBeNull();
    const issues = NodeHelpers.getNodeParametersIssues(type.description.properties, { ...node, parameters: resolved as INodeParameters }, type.description);
    // The alerts leave the room and the collection for the user to pick from the lists; nothing else is missing.
    const unset = Object.keys(issues?.parameters ?? {}).sort();
    const toPick = node.type.endsWith('.faceMatchTrigger') ? ['collectionId', 'roomId'] : [];
    expect(`${node.name}: ${unset.join(',')}`).toBe(`${node.name}: ${toPick.join(',')}`);
    for (const key of toPick) expect((node.parameters[key] as { mode?: string }).mode).toBe('list');
    const cred = node.credentials?.visionStreamingApi;
    expect(credentialFile.find((c) => c.id === cred?.id)?.type).toBe('visionStreamingApi');
  }
  for (const [from, { main }] of Object.entries(wf.connections)) {
    expect(wf.nodes.map((n) => n.name)).toContain(from);
    for (const targets of main) for (const t of targets) expect(wf.nodes.map((n) => n.name)).toContain(t.node);
  }
});

test('the sandbox credential points every address at the sandbox default', () => {
  expect(credentialFile).toHaveLength(1);
  expect(credentialFile[0].data).toEqual(expect.objectContaining({ authUrl: 'http://127.0.0.1:8787', visionUrl: 'http://127.0.0.1:8787', sfuUrl: 'http://127.0.0.1:8787', clientId: 'sandbox-client' }));
});

/** The nodes of an example, as a chain to run after a source node standing in for the webhook. */
function chain(file: string, names: string[]): NodeSpec[] {
  return names.map((name) => {
    const node = workflows[file].nodes.find((n) => n.name === name)!;
    return { name: node.name, type: node.type, typeVersion: node.typeVersion, parameters: node.parameters, credentials: { visionStreamingApi: { id: 'cred', name: 'Sandbox' } } };
  });
}

test("the enrol and compare examples' vision steps work on the webhook's output", async () => {
  const store = new CredentialStore();
  store.set('cred', { ...credentialFile[0].data, authUrl: sandbox.url, visionUrl: sandbox.url, sfuUrl: sandbox.url });
  const engine = new Engine(pkg, store);
  const photo = { photo: { data: astronautFaceOfSize(200), fileName: 'me.jpg', mimeType: 'image/jpeg' } };
  const upload = [{ json: { body: { name: 'Eileen' } }, binary: photo }];
  // First enrolment: no collection yet, so the "false" branch creates one.
  const enrol = await engine.runChain(upload, chain('enrol-faces.json', ['Find Collection', 'Create Collection', 'Add Face']));
  expect(enrol.error).toBeUndefined();
  const added = enrol.output('Add Face')[0].json as { faceId: string; collectionId: string };
  expect(added.faceId).toEqual(expect.any(String));
  // Later enrolments take the "true" branch: the collection found is used.
  const again = await engine.runChain(upload, chain('enrol-faces.json', ['Find Collection', 'Add Face']));
  expect((again.output('Add Face')[0].json as { collectionId: string }).collectionId).toBe(added.collectionId);

  const compared = await engine.runChain([{ binary: { photo: { ...photo.photo, data: astronautFaceOfSize(170) } } }], chain('compare-uploaded-photo.json', ['Find Collection', 'Compare']));
  expect(compared.error).toBeUndefined();
  const result = compared.output('Compare')[0].json as { bestFaceId: string; bestScore: number };
  expect([added.faceId, (again.output('Add Face')[0].json as { faceId: string }).faceId]).toContain(result.bestFaceId);
  expect(result.bestScore).toBeGreaterThan(0.8);
});
