import { defaultSandboxOptions, startSandbox } from './index';

/** Command-line entry: starts the sandbox from SANDBOX_* variables and stops it on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  const sandbox = await startSandbox();
  console.log(`sandbox listening on ${sandbox.url}`);
  console.log(`  auth_url = vision_url = sfu_url = ${sandbox.url}`);
  console.log(`  client id: ${sandbox.clientId}`);
  // Only the documented public default is ever shown; a secret chosen through the environment is not.
  console.log(
    sandbox.secretIsDefault
      ? `  client secret: ${defaultSandboxOptions.clientSecret} (public default)`
      : '  client secret: (from SANDBOX_CLIENT_SECRET, not shown)',
  );
  console.log(`  admin: POST ${sandbox.url}/_sandbox/faults | /_sandbox/reset | /_sandbox/expire-tokens, GET /_sandbox/stats`);
  const stop = (): void => {
    sandbox.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error('sandbox failed to start:', err instanceof Error ? err.message : String(err));
  process.exit(1);
});
