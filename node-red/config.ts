import type { Node, NodeAPI, NodeDef } from 'node-red';
import { registerAdminEndpoints } from './lib/admin';
import { ServiceConnection } from './lib/connection';
import { optionalNumber } from './lib/action-node';
import { ConfigHistory } from './lib/history';
import { ConfigPeople } from './lib/people';
import type { ServiceAddresses } from './lib/admin';
import { SERVICE_URLS } from '../shared/service-urls';

/** Settings of the config node (the addresses); the client id and secret are credentials. */
interface ConfigDef extends NodeDef {
  authUrl?: string;
  visionUrl?: string;
  sfuUrl?: string;
  /** The history's media folder (empty: beside the SQLite file). */
  historyMedia?: string;
  /** Days a visit is kept ('' = 30). */
  historyDays?: string | number;
  /** The history's media at most, in GB ('' = 2). */
  historyMediaGB?: string | number;
}

interface ConfigCredentials {
  clientId?: string;
  clientSecret?: string;
  /** postgres://… of a shared history (it may hold a password); empty: SQLite in the user directory. */
  historyUrl?: string;
}

type ConfigNode = Node<ConfigCredentials> & { connection: ServiceConnection; addresses: ServiceAddresses; people: ConfigPeople; history: ConfigHistory };

/** Registers `vision-streaming-config`: credentials and addresses, one shared connection, the people of each collection, the history of visits. */
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
    // The visits its watch nodes keep, searched by its history nodes and erased by its people nodes' forget.
    this.history = new ConfigHistory(RED.settings.userDir as string | undefined, this.id, {
      url: creds.historyUrl,
      media: def.historyMedia,
      maxAgeDays: optionalNumber(def.historyDays),
      maxMediaBytes: optionalNumber(def.historyMediaGB) === undefined ? undefined : Math.round(Number(def.historyMediaGB) * 1e9),
    });
    this.on('close', (_removed: boolean, done: () => void) => {
      Promise.allSettled([this.connection.close(), this.history.close()]).then(() => done(), done);
    });
  }
  RED.nodes.registerType<ConfigNode, ConfigDef, unknown, ConfigCredentials>('vision-streaming-config', ConfigNode, {
    credentials: {
      clientId: { type: 'password' },
      clientSecret: { type: 'password' },
      historyUrl: { type: 'password' },
    },
  });
  registerAdminEndpoints(RED);
};

function text(value: string | undefined): string | undefined {
  const t = value?.trim();
  return t ? t : undefined;
}
