/** Visual Recognition client and its result types. */
export { VisionClient, type VisionClientOptions, type VisionCredentialsOptions, type VisionTokenSourceOptions } from './vision-client';
export * from './types';
