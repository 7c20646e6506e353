import type SharpModule from 'sharp';

let loaded: typeof SharpModule | undefined;

/**
 * sharp, loaded on first use: hosts that never make a picture do not pay for libvips. sharp picks
 * its native build when the platform package is installed and falls back to @img/sharp-wasm32.
 */
export function sharpLib(): typeof SharpModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('sharp') as typeof SharpModule;
  return loaded;
}

/** Which sharp build makes the pictures in this process. */
export function pictureBackend(): 'sharp-native' | 'sharp-wasm' {
  // Only the wasm build reports an emscripten version.
  return 'emscripten' in sharpLib().versions ? 'sharp-wasm' : 'sharp-native';
}
