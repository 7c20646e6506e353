import {
  ICredentialsHelper,
  NodeHelpers,
  type ICredentialDataDecryptedObject,
  type ICredentials,
  type ICredentialType,
  type IHttpRequestHelper,
  type IHttpRequestOptions,
  type INode,
  type INodeCredentialsDetails,
  type INodeParameters,
  type INodeProperties,
  type IRequestOptionsSimplified,
  type IWorkflowExecuteAdditionalData,
  type Workflow,
} from 'n8n-workflow';

/** Where stored credentials live; shared by helpers the way n8n's database is shared by queue-mode workers. */
export class CredentialStore {
  readonly #data = new Map<string, ICredentialDataDecryptedObject>();
  /** How many times preAuthentication ran, and how many of those were renewals after a 401. */
  readonly preAuthentications = { total: 0, renewals: 0 };

  set(id: string, data: ICredentialDataDecryptedObject): void {
    this.#data.set(id, structuredClone(data));
  }

  get(id: string): ICredentialDataDecryptedObject {
    const data = this.#data.get(id);
    if (!data) throw new Error(`no credential with id ${id}`);
    return structuredClone(data);
  }
}

/**
 * The parts of n8n's CredentialsHelper (packages/cli) that a node run uses, re-implemented for
 * tests: defaults applied on read, `preAuthentication` run when the expirable field is empty or a
 * request got a 401 and its result stored, and the generic `authenticate` resolved with n8n's own
 * expression engine (n8n's own test stub ignores generic objects: headers would silently be missing).
 */
export class TestCredentialsHelper extends ICredentialsHelper {
  constructor(
    readonly types: Map<string, ICredentialType>,
    readonly store: CredentialStore,
  ) {
    super();
  }

  getParentTypes(): string[] {
    return [];
  }

  isCredentialUsableByNode(): boolean {
    return true;
  }

  async authenticate(
    credentials: ICredentialDataDecryptedObject,
    typeName: string,
    requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
    workflow?: Workflow,
    node?: INode,
  ): Promise<IHttpRequestOptions> {
    const type = this.#type(typeName);
    const options = requestOptions as IHttpRequestOptions;
    const auth = type.authenticate;
    if (typeof auth === 'function') return await auth(credentials, options);
    if (auth?.type === 'generic') {
      if (!workflow || !node) throw new Error('generic authentication needs the workflow and node');
      for (const [outer, values] of Object.entries(auth.properties)) {
        const target = ((options as unknown as Record<string, Record<string, unknown>>)[outer] ??= {});
        for (const [key, value] of Object.entries(values as Record<string, string>)) {
          target[this.#resolve(key, credentials, workflow, node)] = this.#resolve(value, credentials, workflow, node);
        }
      }
    }
    return options;
  }

  async preAuthentication(
    helpers: IHttpRequestHelper,
    credentials: ICredentialDataDecryptedObject,
    typeName: string,
    node: INode,
    credentialsExpired: boolean,
  ): Promise<ICredentialDataDecryptedObject | undefined> {
    const type = this.#type(typeName);
    const expirable = type.properties.find((p) => p.type === 'hidden' && p.typeOptions?.expirable === true);
    if (!expirable || typeof type.preAuthentication !== 'function') return undefined;
    if (credentials[expirable.name] !== '' && !credentialsExpired) return undefined;
    this.store.preAuthentications.total += 1;
    if (credentialsExpired) this.store.preAuthentications.renewals += 1;
    const output = await type.preAuthentication.call(helpers, credentials);
    if (output[expirable.name] === undefined) return undefined;
    const details = node.credentials?.[typeName];
    if (details?.id) this.store.set(details.id, { ...this.store.get(details.id), ...(output as ICredentialDataDecryptedObject) });
    return Object.assign(credentials, output);
  }

  async runPreAuthentication(): Promise<undefined> {
    return undefined;
  }

  async getCredentials(): Promise<ICredentials> {
    throw new Error('not used by these nodes');
  }

  async getDecrypted(
    _additionalData: IWorkflowExecuteAdditionalData,
    nodeCredentials: INodeCredentialsDetails,
    type: string,
  ): Promise<ICredentialDataDecryptedObject> {
    if (!nodeCredentials.id) throw new Error('credential without id');
    const stored = this.store.get(nodeCredentials.id);
    const withDefaults = NodeHelpers.getNodeParameters(this.getCredentialsProperties(type), stored as INodeParameters, true, false, null, null);
    return { ...(withDefaults as ICredentialDataDecryptedObject), ...stored };
  }

  async updateCredentials(nodeCredentials: INodeCredentialsDetails, _type: string, data: ICredentialDataDecryptedObject): Promise<void> {
    if (nodeCredentials.id) this.store.set(nodeCredentials.id, data);
  }

  async updateCredentialsOauthTokenData(): Promise<void> {}

  getCredentialsProperties(type: string): INodeProperties[] {
    return this.#type(type).properties;
  }

  #type(name: string): ICredentialType {
    const type = this.types.get(name);
    if (!type) throw new Error(`unknown credential type ${name}`);
    return type;
  }

  #resolve(value: string, credentials: ICredentialDataDecryptedObject, workflow: Workflow, node: INode): string {
    if (typeof value !== 'string' || !value.startsWith('=')) return value;
    const resolved = workflow.expression.getSimpleParameterValue(node, value, 'internal', { $credentials: credentials } as never, undefined, '');
    return resolved === undefined || resolved === null ? '' : String(resolved);
  }
}
