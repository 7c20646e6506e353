import type { Node, NodeAPI, NodeDef } from 'node-red';
import { registerAdminEndpoints } from './lib/admin';
import { ServiceConnection } from './lib/connection';
import { ConfigPeople } from './lib/people';
import type { ServiceAddresses } from './lib/admin';
import { SERVICE_URLS } from '../shared/service-urls';

/** Settings of the config node (the addresses); the client id and secret are credentials. */
interface ConfigDef extends NodeDef {
  authUrl?: string;
  visionUrl?: string;
  sfuUrl?: string;
}

interface ConfigCredentials {
  clientId?: string;
  clientSecret?: string;
}

type ConfigNode = Node<ConfigCredentials> & { connection: ServiceConnection; addresses: ServiceAddresses; people: ConfigPeople };

/** Registers `vision-streaming-config`: credentials and addresses, one shared connection, the people of each collection. */
export = function register(RED: NodeAPI): void {
  function ConfigNode(this: ConfigNode, def: ConfigDef): void {
    RED.nodes.createNode(this, def);
    const creds = this.credentials ?? {};
    this.addresses = {
      authUrl: text(def.authUrl) ?? SERVICE_URLS.authUrl,
      visionUrl: text(def.visionUrl) ?? SERVICE_URLS.visionUrl,
      sfuUrl: text(def.sfuUrl) ?? SERVICE_URLS.sfuUrl,
    };
    this.connection = new ServiceConnection({ ...this.addresses, clientId: text(creds.clientId), clientSecret: creds.clientSecret || undefined });
    // People files live where Node-RED keeps its own state; their seal comes from the client secret.
    this.people = new ConfigPeople(RED.settings.userDir as string | undefined, { clientId: text(creds.clientId), clientSecret: creds.clientSecret || undefined });
    this.on('close', (_removed: boolean, done: () => void) => {
      this.connection.close().then(done, done);
    });
  }
  RED.nodes.registerType<ConfigNode, ConfigDef, unknown, ConfigCredentials>('vision-streaming-config', ConfigNode, {
    credentials: {
      clientId: { type: 'password' },
      clientSecret: { type: 'password' },
    },
  });
  registerAdminEndpoints(RED);
};

function text(value: string | undefined): string | undefined {
  const t = value?.trim();
  return t ? t : undefined;
}
