import type SharpType from 'sharp';

// sharp is a native addon. The single-executable build of the tool cannot `require` it from inside
// its blob, so it extracts the addon at run time and hands the loaded module in with provideSharp().
let provided: typeof SharpType | undefined;

export function provideSharp(sharp: typeof SharpType): void {
  provided = sharp;
}

export function getSharp(): typeof SharpType {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  provided ??= require('sharp') as typeof SharpType;
  return provided;
}
