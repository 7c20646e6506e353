import { request } from 'undici';
import { Workflow, type ICredentialDataDecryptedObject, type INode } from 'n8n-workflow';
import { startSandbox, type RunningSandbox } from '../../sandbox';
import { cleanUpEngine, loadPackage, SOURCE_NODE, type LoadedPackage } from './support/engine';
import { CredentialStore, TestCredentialsHelper } from './support/credentials-helper';

// The credential as n8n's credential test uses it: preAuthentication, then the generic headers, then its test request.

const SECRET = 'credential-test-secret';
let sandbox: RunningSandbox;
let pkg: LoadedPackage;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, clientSecret: SECRET });
  pkg = await loadPackage();
}, 180_000);

afterAll(async () => {
  await sandbox?.stop();
  cleanUpEngine();
});

/** Stands in for the temporary node n8n's credential tester runs a test request as (forced preAuthentication). */
const TEST_NODE: INode = { id: 't', name: 'Temp-Node', type: SOURCE_NODE, typeVersion: 1, position: [0, 0], parameters: { key: '' } };

/** Runs the credential's `test` request the way n8n's credential tester does; resolves with the HTTP status. */
async function credentialTest(data: ICredentialDataDecryptedObject): Promise<number> {
  const type = pkg.credentialTypes.get('visionStreamingApi')!;
  const store = new CredentialStore();
  const helper = new TestCredentialsHelper(pkg.credentialTypes, store);
  const workflow = new Workflow({ nodes: [TEST_NODE], connections: {}, active: false, nodeTypes: pkg.nodeTypes });
  const credentials = { accessToken: '', apiKey: '', ...data };
  // No request helper, as n8n's credential tester may call it: the credential then uses the runtime's fetch.
  const refreshed = await helper.preAuthentication({ helpers: {} } as never, credentials, type.name, TEST_NODE, true);
  Object.assign(credentials, refreshed ?? {});
  const test = type.test!.request;
  const resolve = (v: string) => workflow.expression.getSimpleParameterValue(TEST_NODE, v, 'internal', { $credentials: credentials } as never, undefined, '') as string;
  const options = await helper.authenticate(credentials, type.name, { url: test.url!, method: test.method, headers: { ...(test.headers as Record<string, string>) } }, workflow, TEST_NODE);
  const response = await request(resolve(String(test.baseURL)) + options.url, { method: options.method as 'GET', headers: options.headers as Record<string, string> });
  await response.body.dump();
  return response.statusCode;
}

test('the test request succeeds with the right pair, also with a base URL ending in /v1/', async () => {
  expect(await credentialTest({ clientId: sandbox.clientId, clientSecret: SECRET, authUrl: sandbox.url, visionUrl: sandbox.url, sfuUrl: sandbox.url })).toBe(200);
  expect(await credentialTest({ clientId: sandbox.clientId, clientSecret: SECRET, authUrl: sandbox.url, visionUrl: `${sandbox.url}/v1/`, sfuUrl: sandbox.url })).toBe(200);
});

test('a wrong secret fails in preAuthentication with a message naming the pair, not the secret', async () => {
  const failure = credentialTest({ clientId: sandbox.clientId, clientSecret: 'not-the-secret', authUrl: sandbox.url, visionUrl: sandbox.url, sfuUrl: sandbox.url });
  await expect(failure).rejects.toThrow(/client id or client secret was rejected/);
  await expect(failure).rejects.not.toThrow(/not-the-secret/);
});

test('the generic authenticate sends the bearer token and the API key', async () => {
  const type = pkg.credentialTypes.get('visionStreamingApi')!;
  const helper = new TestCredentialsHelper(pkg.credentialTypes, new CredentialStore());
  const workflow = new Workflow({ nodes: [TEST_NODE], connections: {}, active: false, nodeTypes: pkg.nodeTypes });
  const options = await helper.authenticate({ accessToken: 'tok-1', apiKey: 'key-1' }, type.name, { url: '/x', headers: {} }, workflow, TEST_NODE);
  expect(options.headers).toEqual({ Authorization: 'Bearer tok-1', 'x-api-key': 'key-1' });
});

test('the expirable field is hidden, and secrets are password fields', () => {
  const props = pkg.credentialTypes.get('visionStreamingApi')!.properties;
  const byName = Object.fromEntries(props.map((p) => [p.name, p]));
  expect(byName.accessToken).toEqual(expect.objectContaining({ type: 'hidden', typeOptions: expect.objectContaining({ expirable: true }) }));
  expect(byName.clientSecret.typeOptions?.password).toBe(true);
  expect(byName.authUrl.default).toBe('https://auth.api.ricoh');
  expect(byName.visionUrl.default).toBe('https://ips.api.ricoh');
  expect(byName.sfuUrl.default).toBe('https://sfu.api.ricoh');
});
