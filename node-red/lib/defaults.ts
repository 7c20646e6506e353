/** The real services' addresses, used when a config field is left empty. */
export const DEFAULT_URLS = {
  authUrl: 'https://auth.api.ricoh',
  visionUrl: 'https://ips.api.ricoh',
  sfuUrl: 'https://sfu.api.ricoh',
} as const;
