/**
 * The real services' base addresses: the defaults of the n8n credential, the Node-RED config node
 * and the command line. Users point them at the sandbox to work offline.
 */
export const SERVICE_URLS = {
  authUrl: 'https://auth.api.ricoh',
  visionUrl: 'https://ips.api.ricoh',
  sfuUrl: 'https://sfu.api.ricoh',
} as const;
